/* The sync line of the recording screen: how many entries wait on this device and when the
   server last confirmed one, in the page's language. One job: words for sync.js's status.

     import { renderStatus } from "/static/js/table/status.js";
     sync = createSync({ ..., onChange: (status) => renderStatus(syncLine, status, i18n.offline_text) });

   "3 entries waiting · last synced 18:02 (2 minutes ago)", "All saved",
   "Offline: 3 entries kept on this device". The sentences come from the page's i18n JSON
   (web/pages/offline_text.py, translated in the .po); a counted one is given per plural
   category and picked with Intl.PluralRules, so Lithuanian says 1 įrašas, 2 įrašai, 10 įrašų.
   Times are the device's clock, absolute (18:02; with the date when not today) and relative
   (Intl.RelativeTimeFormat: "2 minutes ago", "prieš 2 minutes"). */

/** The English sentences, for a page (or a test) without the i18n JSON; keys as offline_text.py. */
export const ENGLISH = {
  language: "en",
  all_saved: "All saved",
  waiting: { one: "%(n)s entry waiting", other: "%(n)s entries waiting" },
  sending: { one: "Sending %(n)s entry…", other: "Sending %(n)s entries…" },
  offline_kept: { one: "Offline: %(n)s entry kept on this device", other: "Offline: %(n)s entries kept on this device" },
  offline_none: "Offline: nothing waiting",
  retry_when: "trying again %(when)s",
  conflict_status: "Two versions of this deal: choose which to keep",
  signed_out: "Signed out: sign in again to send what this device keeps",
  other_user: { one: "%(n)s entry waits for the scorer who recorded it to sign in on this device", other: "%(n)s entries wait for the scorer who recorded them to sign in on this device" },
  last_synced: "last synced %(time)s (%(ago)s)",
  never_synced: "not synced yet",
};

const SEPARATOR = " · ";

export function fmt(template, params = {}) {
  return String(template ?? "").replace(/%\((\w+)\)s/g, (_m, key) => (params[key] == null ? "" : String(params[key])));
}

/** The page's words over the English ones: `text` is the offline_text object, or the whole
    i18n JSON holding it. */
export function wordsOf(text) {
  const given = text && typeof text === "object" && text.offline_text ? text.offline_text : text;
  return { ...ENGLISH, ...(given || {}) };
}

/** The sentence for `n` from a {category: sentence} object (or one sentence for every n). */
export function counted(forms, n, language) {
  if (typeof forms === "string") return fmt(forms, { n });
  let category = "other";
  try { category = new Intl.PluralRules(language).select(n); } catch (e) { /* an unknown language: "other" */ }
  const form = forms[category] ?? (category === "many" ? forms.other : undefined) ?? forms.other ?? forms.one;
  return fmt(form, { n });
}

/** "18:02" when `at` is on the same day as `now` on this device, else the date too. */
export function absoluteTime(at, now, language, timeZone) {
  const zone = timeZone ? { timeZone } : {};
  const day = new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", ...zone });
  const sameDay = day.format(at) === day.format(now);
  const options = sameDay
    ? { hour: "2-digit", minute: "2-digit", hourCycle: "h23", ...zone }
    : { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", ...zone };
  return new Intl.DateTimeFormat(language, options).format(at);
}

/** "now", "2 minutes ago", "in 8 seconds" (or "dabar", "prieš 2 minutes", "po 8 sekundžių"). */
export function relativeTime(milliseconds, language) {
  const rtf = new Intl.RelativeTimeFormat(language, { numeric: "auto" });
  const seconds = milliseconds / 1000;
  const size = Math.abs(seconds);
  // A sync a few seconds ago is "now": a line that counted seconds would change every second.
  if (seconds <= 0 && size < 45) return rtf.format(0, "second");
  // Rounded by size (Math.round would make -1.5 hours "1 hour ago" and +1.5 "in 2 hours").
  const round = (unit) => Math.sign(seconds) * Math.max(1, Math.round(size / unit));
  if (size < 90) return rtf.format(round(1), "second");
  if (size < 45 * 60) return rtf.format(round(60), "minute");
  if (size < 22 * 3600) return rtf.format(round(3600), "hour");
  return rtf.format(round(86400), "day");
}

/** What the line says: {state, main, when: null | {template, time, iso, ago}, line}. */
export function statusText({ state = "idle", waiting = 0, lastSyncedAt = null, retryIn = null } = {}, text = {}, now = Date.now()) {
  const t = wordsOf(text);
  const language = t.language || "en";
  const n = Number.isInteger(waiting) && waiting > 0 ? waiting : 0;
  let main;
  if (state === "conflict") main = t.conflict_status;
  else if (state === "signed_out") main = t.signed_out;
  else if (state === "other_user") main = counted(t.other_user, n || 1, language);
  else if (state === "offline") main = n ? counted(t.offline_kept, n, language) : t.offline_none;
  else if (state === "sending" && n) main = counted(t.sending, n, language);
  else if (n) main = counted(t.waiting, n, language);
  else main = t.all_saved;
  if (state === "retrying" && n && Number.isFinite(retryIn) && retryIn > 0) {
    main += SEPARATOR + fmt(t.retry_when, { when: relativeTime(retryIn, language) });
  }
  let when = null;
  if (Number.isFinite(lastSyncedAt)) {
    const time = absoluteTime(lastSyncedAt, now, language, t.timeZone);
    const ago = relativeTime(lastSyncedAt - now, language);
    when = { template: t.last_synced, time, iso: new Date(lastSyncedAt).toISOString(), ago };
  } else if (n) {
    when = { template: t.never_synced, time: null, iso: null, ago: null };
  }
  const tail = when ? fmt(when.template, { time: when.time, ago: when.ago }) : "";
  return { state, main, when, line: tail ? main + SEPARATOR + tail : main };
}

/** Write the line into `el` (the screen's role=status element): the main sentence, then the
    last sync with its absolute time in a <time datetime>. Nothing is rewritten when the words
    did not change, so a screen reader hears each change once, not every re-render. */
export function renderStatus(el, status = {}, text = {}, now = Date.now()) {
  const said = statusText(status, text, now);
  el.dataset.state = said.state;
  el.dataset.waiting = String(status.waiting || 0);
  if (status.error) el.dataset.error = String(status.error);
  else delete el.dataset.error;
  if (el.dataset.line === said.line) return said;
  el.dataset.line = said.line;
  const doc = el.ownerDocument;
  const main = doc.createElement("span");
  main.className = "sync-main";
  main.textContent = said.main;
  const parts = [main];
  if (said.when) {
    const when = doc.createElement("span");
    when.className = "sync-when";
    // The template's %(time)s becomes a <time> element; the rest stays text, as translated.
    const pieces = String(said.when.template).split("%(time)s");
    pieces.forEach((piece, i) => {
      if (i > 0) {
        const time = doc.createElement("time");
        time.setAttribute("datetime", said.when.iso);
        time.textContent = said.when.time;
        when.append(time);
      }
      const rest = fmt(piece, { ago: said.when.ago });
      if (rest) when.append(doc.createTextNode(rest));
    });
    parts.push(doc.createTextNode(SEPARATOR), when);
  }
  el.replaceChildren(...parts);
  return said;
}
