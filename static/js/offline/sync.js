/* The sync: sends the device's queue (queue.js) to the server, in order, as soon as the
   server answers. One job only; the screen reads its status and shows conflicts.

   - One record at a time, oldest first: an entry's expected_seq was counted on the ones
     before it, so sending out of order would only earn 409s.
   - A retry resends the very same body with the same idempotency key, so an answer lost on
     the way back (the server stored it, the tablet never heard) is answered with the stored
     entry instead of storing it twice.
   - Network failures, 408, 429 and 5xx wait and retry, doubling the wait up to maxDelay;
     while the browser says it is offline nothing is tried, and the `online` event resumes
     at once.
   - A deal started offline is sent with its client id; once the server accepts it, the
     queue's records of that deal are moved to the server's id.
   - A 409 (another device changed the deal), a server verdict that differs from the
     tablet's own (engine version skew) or a refusal of an entry the tablet accepted stops
     the sync and reports a conflict with both versions and the ways to resolve it; the
     conflict is kept with the record, so a reload shows it again. Nothing is dropped
     without the scorer choosing it.
   - A record waits for the scorer who made it: signed in as someone else, the sync sends
     nothing and says so (state "other_user"); it goes once that scorer signs in again. An
     entry the signed-in scorer records online meanwhile, of another deal, goes past it.
   - A conflict is only what is true: the server's entries this device sent itself (their
     idempotency keys are remembered, queue.rememberSent) are marked as this tablet's, never
     as another device's, and only choices that can succeed for that deal are offered
     (`canPutOnTop`, the page's own referee, says whether mine go on top of the server's).
   - An entry recorded online (`record.online`: no verdict of the device) goes through this
     same queue, but belongs to the screen that recorded it (`screen`): the screen is told
     each step and writes its own line; a refusal or a stale expected_seq goes beside its form
     and the entry leaves the queue (there is nothing to choose: the device never said yes);
     after two network failures in a row the screen may referee it on the device
     (`screen.takeOver`), which adds its verdict to the record: from then on it is the
     device's own, and a refusal is a conflict for the scorer. Such an entry seen from
     another deal's screen is treated as the device's own too (never dropped unseen). */

export const KEEP_SERVER = "keep_server";
export const MINE_ON_TOP = "mine_on_top";
export const USE_MINE = "use_mine";
export const DISCARD_MINE = "discard_mine";

/** The API's paths (README "The API"); the screen may pass its own. */
export const API_URLS = {
  entries: (deal) => `/api/deals/${deal}/entries/`,
  deal: (deal) => `/api/deals/${deal}/`,
  // With the snapshot and whether a later deal has started (a conflict's choices).
  dealInFull: (deal) => `/api/deals/${deal}/?snapshot=1`,
  undo: (deal) => `/api/deals/${deal}/undo/`,
  tabletVersion: (deal) => `/api/deals/${deal}/tablet-version/`,
  dealStart: (session) => `/api/sessions/${session}/deals/`,
};

const RETRIED_STATUSES = new Set([408, 429]);
const LOCK_NAME = "kortos-offline-sync";

/** Does the server's verdict say what the tablet's engine said? Every field the tablet
    gave must be equal on the server; the server may add more (the players' names). */
export function sameVerdict(mine, server) {
  if (mine === null || typeof mine !== "object") return mine === server;
  if (server === null || typeof server !== "object") return false;
  if (Array.isArray(mine)) {
    return Array.isArray(server) && mine.length === server.length && mine.every((v, i) => sameVerdict(v, server[i]));
  }
  return Object.keys(mine).every((k) => k in server && sameVerdict(mine[k], server[k]));
}

export function createSync({
  queue,
  fetch = (...args) => globalThis.fetch(...args),
  headers = () => ({}),
  urls = API_URLS,
  events = globalThis,
  isOnline = () => !(globalThis.navigator && globalThis.navigator.onLine === false),
  setTimeout = (...args) => globalThis.setTimeout(...args),
  clearTimeout = (...args) => globalThis.clearTimeout(...args),
  baseDelay = 1000,
  maxDelay = 30000,
  compare = sameVerdict,
  onChange = () => {},
  now = Date.now,
  locks = globalThis.navigator && globalThis.navigator.locks,
  // Can my records of a deal go on top of the server's deal as it is (server: the deal's view,
  // with its snapshot)? The page asks its referee; without one, a deal the server finished cannot.
  canPutOnTop = async (server) => !(server && server.finished),
  // Who is signed in here (the page's user id), or null when unknown. A record made by another
  // scorer waits for them to sign in again: it is never sent in someone else's name.
  user = () => null,
  // The screen that records online (record.js's hooks), or null: mine(record) -> the record is
  // this screen's; sending(record, attempt); stored(record, data); refused(record, status,
  // data); retrying(record, {status, offline}); takeOver(record) -> a promise of true once the
  // device has refereed it (called without waiting: it takes its turn on the page).
  screen = null,
} = {}) {
  let state = "idle";
  let conflict = null;
  let attempt = 0;
  let timer = null;
  let retryIn = null;
  let running = null;
  let again = false;
  let started = false;
  let lastError = null;
  let withdrawing = false;
  // The record at the head of the queue, and how many times in a row the network failed it.
  let head = null;
  let failing = null;
  let failures = 0;

  const screens = (record) => Boolean(screen && record && record.online && record.verdict === undefined && screen.mine(record));

  async function setState(next) {
    state = next;
    const [waiting, lastSyncedAt] = await Promise.all([queue.count(), queue.lastSyncedAt()]);
    // online: the head is an entry recorded online on this screen, which says its own news.
    onChange({ state, waiting, lastSyncedAt, conflict, retryIn, error: lastError, online: screens(head) });
  }

  function cancelTimer() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    retryIn = null;
  }

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", ...headers() },
      body: JSON.stringify(body),
    });
    return { status: response.status, data: await response.json().catch(() => ({})) };
  }

  async function get(url) {
    const response = await fetch(url, {
      credentials: "same-origin", headers: { Accept: "application/json", ...headers() },
    });
    if (response.status !== 200) return null;
    return response.json().catch(() => null);
  }

  function send(record) {
    if (record.kind === "deal_start") {
      const body = { client_id: record.deal, idempotency_key: record.key };
      if (record.dealer !== undefined && record.dealer !== null) body.dealer = record.dealer;
      return post(urls.dealStart(record.session), body);
    }
    return post(urls.entries(record.deal), {
      ...record.payload, idempotency_key: record.key, expected_seq: record.expected_seq,
    });
  }

  /** The server's side of a conflict over a deal: its picture now and its active entries. */
  async function serverVersion(deal) {
    if (typeof deal !== "number") return { deal: null, entries: null };
    try {
      const [view, entries] = await Promise.all([get(urls.dealInFull(deal)), get(urls.entries(deal))]);
      return { deal: view, entries };
    } catch (error) {
      return { deal: null, entries: null };  // still a conflict; the screen says the server's picture is missing
    }
  }

  /** The choices that can succeed: keep the server's always; for a stale deal, mine on top when
      the referee takes them there, and mine instead of the server's while no later deal has
      started; for a verdict, undoing the stored entry likewise. */
  async function choices(kind, server, mine) {
    const deal = server.deal || null;
    // A closed session, or a later deal started, takes no change to this deal.
    const later = Boolean(deal && (deal.later_deals || deal.session_open === false));
    if (kind === "refused") return [KEEP_SERVER];
    // A verdict: the server holds my first record already; the rest would go on top of it.
    const entries = mine.filter((r) => r.kind === "entry").slice(kind === "verdict" ? 1 : 0);
    const found = [KEEP_SERVER];
    let onTop = false;
    try { onTop = Boolean(deal) && deal.session_open !== false && entries.length > 0 && (await canPutOnTop(deal, entries)); } catch (error) { onTop = false; }
    if (onTop) found.push(MINE_ON_TOP);
    if (kind === "verdict") { if (deal && !later) found.push(DISCARD_MINE); }
    else if (deal && !later && entries.length > 0) found.push(USE_MINE);
    return found;
  }

  async function report(record, kind, server, message) {
    const mine = (await queue.list({ deal: record.deal })).filter((r) => r.order >= record.order).map(plain);
    if (Array.isArray(server.entries)) {
      // The server's entries this device sent itself are this tablet's, never "another device's".
      const sent = new Set(await queue.sentKeys());
      server.entries = server.entries.map((e) => ({ ...e, own: Boolean(e.idempotency_key) && sent.has(e.idempotency_key) }));
    }
    const resolutions = await choices(kind, server, mine);
    const where = record.where || null;
    conflict = { kind, key: record.key, deal: record.deal, where, message, mine: { records: mine }, server, resolutions, at: now() };
    await queue.update({ [record.key]: { conflict } });
    cancelTimer();
    await setState("conflict");
  }

  function retryLater(keepTrying = false) {
    cancelTimer();
    // The `online` event resumes; an entry of the screen's own is tried on regardless (the
    // browser's word is not the network's, and the device may take it over meanwhile).
    if (!isOnline() && !keepTrying) return setState("offline");
    attempt += 1;
    retryIn = Math.min(maxDelay, baseDelay * 2 ** (attempt - 1));
    timer = setTimeout(() => { timer = null; retryIn = null; pump(); }, retryIn);
    return setState(isOnline() ? "retrying" : "offline");
  }

  /** The screen's own entry was not sent (the network, or the server's status): it waits and
      goes again; from the second network failure in a row the device may take it over. */
  async function screenRetry(record, status) {
    if (status === null) {
      failures = failing === record.key ? failures + 1 : 1;
      failing = record.key;
      if (failures >= 2 && screen.takeOver) {
        Promise.resolve().then(() => screen.takeOver(record)).catch(() => false);
      }
    }
    await retryLater(true);
    screen.retrying(record, { status, offline: !isOnline() });
  }

  /** The first entry of this screen's own, by this scorer, of a deal no earlier record is of. */
  async function passing(now) {
    const earlier = new Set();
    for (const record of await queue.list()) {
      if (screens(record) && record.user === now && !record.conflict && !earlier.has(record.deal)) return record;
      earlier.add(record.deal);
    }
    return null;
  }

  /** Send until the queue is empty, the network fails, or a conflict stops us. */
  async function drain() {
    cancelTimer();
    while (started && conflict === null) {
      let record = await queue.peek();
      head = record;
      if (!isOnline()) return screens(record) ? screenRetry(record, null) : setState("offline");
      if (record === null) { attempt = 0; return setState("idle"); }
      if (record.conflict) {  // found before a reload: show it again, send nothing
        conflict = record.conflict;
        return setState("conflict");
      }
      const now = user();
      if (record.user && now !== null && record.user !== now) {
        // Another scorer's records wait for them; this screen's own entry of a deal none of
        // theirs is of goes meanwhile (the one outbox must not hold it up for someone else).
        const ahead = await passing(now);
        if (ahead === null) return setState("other_user");
        record = ahead;
        head = ahead;
      }
      if (record.kind === "entry" && typeof record.deal === "string") {
        const server = await queue.serverDealId(record.deal);
        if (server === null) {
          return report(record, "refused", { status: null },
            "The deal of this entry was never started on the server; its start was set aside or discarded.");
        }
        await queue.update({ [record.key]: { deal: server } });
        record = { ...record, deal: server };
      }
      const own = screens(record);
      if (own) screen.sending(record, failing === record.key ? failures + 1 : 1);
      await setState("sending");
      let answer;
      try {
        answer = await send(record);
      } catch (error) {
        lastError = String(error && error.message ? error.message : error);
        return own ? screenRetry(record, null) : retryLater();
      }
      const { status, data } = answer;
      if ((status === 200 || status === 201) && !confirms(record, data)) {
        // A 200 that does not name this record is not the server's: a café's Wi-Fi sign-in
        // page answers every request with one. Taking it as sent would lose the record.
        lastError = "The answer did not come from the server (a Wi-Fi sign-in page?).";
        return own ? screenRetry(record, null) : retryLater();
      }
      if (status === 200 || status === 201) {
        lastError = null;
        if (record.kind === "deal_start") {
          await queue.dealAccepted(record.deal, data.id);
        } else if (record.verdict !== undefined && !compare(record.verdict, data.entry ? data.entry.result : undefined)) {
          const { deal: view } = await serverVersion(record.deal);
          return report(record, "verdict", { status, entry: data.entry, deal: view || data.deal, seq: data.deal ? data.deal.seq : null },
            "The server's verdict differs from this tablet's.");
        } else {
          await queue.markSent(record.key, data.entry ? data.entry.seq : null);
          if (own) screen.stored(record, data);
        }
        attempt = 0;
        failures = 0;
        continue;
      }
      if (status >= 500 || RETRIED_STATUSES.has(status)) {
        lastError = `HTTP ${status}`;
        return own ? screenRetry(record, status) : retryLater();
      }
      if (own) {
        // Refused, not allowed or stale: nothing was stored, and the device never accepted it.
        await queue.remove([record.key]);
        attempt = 0;
        failures = 0;
        screen.refused(record, status, data);
        continue;
      }
      if (status === 401 || status === 403) {
        // Signed out, an expired CSRF token or a scorer's role taken away: a person must sign
        // in again (or be given the role); kick() resumes. Not a conflict: nothing to choose.
        lastError = data.error || `HTTP ${status}`;
        return setState("signed_out");
      }
      const message = data.error || `HTTP ${status}`;
      const server = { status, code: data.code || null, error: message, seq: data.seq ?? null };
      if (record.kind === "entry" && (status === 409 || status === 400)) Object.assign(server, await serverVersion(record.deal));
      const kind = status === 409 && data.code === "stale_seq" && record.kind === "entry" ? "stale" : "refused";
      return report(record, kind, server, message);
    }
    return undefined;
  }

  function pump() {
    if (!started || withdrawing) { again = again || withdrawing; return running || Promise.resolve(); }
    if (running) { again = true; return running; }
    const rounds = async () => {
      do { again = false; await drain(); } while (again && started && conflict === null && timer === null);
    };
    running = (async () => {
      try {
        // Two tabs of the table over one queue would both send its head (stored once, thanks
        // to the key, but each then tries to take it out): one sync at a time per device.
        if (locks) await locks.request(LOCK_NAME, rounds);
        else await rounds();
      } catch (error) {  // the queue itself failed (storage full, database closed): try again later
        lastError = String(error && error.message ? error.message : error);
        try { await retryLater(); } catch (ignored) { state = "retrying"; }
      } finally {
        running = null;
      }
    })();
    return running;
  }

  /** Take the last waiting record of its deal back out of the queue (an undo on the device),
      never while it may be on its way: this waits for the sync's round in this tab and, across
      tabs, for its lock, so a record is either still here (and taken out before anything can
      send it) or already confirmed by the server. Answers "withdrawn"; "sent" (the server has
      it: undoing it is the server's business); "later" (a later record of that deal, or a deal
      start after it, waits behind it: taking it out would break the order); or "conflict" (it
      is the record of the conflict being shown: the scorer's choice decides). */
  async function withdraw(key) {
    while (running) await running;
    withdrawing = true;
    let answer;
    const take = async () => {
      const all = await queue.list();
      const at = all.findIndex((r) => r.key === key);
      if (at < 0) { answer = "sent"; return; }
      const record = all[at];
      if (record.conflict || (conflict && conflict.key === key)) { answer = "conflict"; return; }
      if (all.slice(at + 1).some((r) => r.kind === "deal_start" || r.deal === record.deal)) { answer = "later"; return; }
      await queue.remove([key]);
      answer = "withdrawn";
    };
    running = (async () => {
      try {
        if (locks) await locks.request(LOCK_NAME, take);
        else await take();
      } finally {
        running = null;
        withdrawing = false;
      }
    })();
    await running;
    if (again) { again = false; pump(); }
    return answer;
  }

  function onOnline() { cancelTimer(); pump(); }
  function onOffline() { if (state !== "conflict") setState("offline"); }

  /** Decide a conflict. keep_server: the server's version stays; my records of that deal go to
      the queue's set-aside list (still listed, to re-enter by hand). mine_on_top: my records are
      sent after the server's last entry. discard_mine: my records leave the queue for the
      set-aside list too, never sent (an entry the server already stored with another verdict is
      undone there): nothing the scorer entered is dropped without a trace. */
  async function resolve(choice) {
    if (conflict === null) throw new Error("There is no conflict to resolve.");
    if (!conflict.resolutions.includes(choice)) {
      throw new Error(`"${choice}" does not resolve this conflict; choose one of: ${conflict.resolutions.join(", ")}.`);
    }
    const head = (await queue.list()).find((r) => r.key === conflict.key);
    const mine = (await queue.list({ deal: conflict.deal })).filter((r) => !head || r.order >= head.order);
    const keys = mine.map((r) => r.key);
    const [first, ...rest] = mine;
    const stored = conflict.kind === "verdict";  // the server has the first one already
    if (choice === KEEP_SERVER) {
      if (stored) {
        await queue.markSent(first.key);
        await queue.setAside(rest.map((r) => r.key), KEEP_SERVER);
      } else {
        await queue.setAside(keys, KEEP_SERVER);
      }
    } else if (choice === USE_MINE) {
      // Mine instead of the server's, as one refereed step on the server: its entries after
      // where mine begin are undone (kept in its log, with who chose), mine stored in their place.
      const entries = mine.filter((r) => r.kind === "entry");
      const seq = await currentSeq(conflict);
      const answer = await post(urls.tabletVersion(conflict.deal), {
        expected_seq: seq, since_seq: entries[0].expected_seq,
        entries: entries.map((r) => ({ payload: r.payload, idempotency_key: r.key })),
      });
      if (answer.status !== 200) {
        throw new Error(answer.data.error || `The server did not take this tablet's version (HTTP ${answer.status}).`);
      }
      for (const record of entries) await queue.markSent(record.key);
      const others = mine.filter((r) => r.kind !== "entry").map((r) => r.key);
      if (others.length) await queue.setAside(others, USE_MINE);
    } else if (choice === MINE_ON_TOP) {
      const seq = stored ? conflict.server.deal.seq : await currentSeq(conflict);
      const renumbered = stored ? rest : mine;
      // The tablet's verdicts were given on the deal without the server's entries; on top of
      // them the server referees each entry again and its verdict is the answer the scorer
      // chose, not a second conflict.
      const changes = Object.fromEntries(renumbered.map((r, i) => [r.key, {
        expected_seq: seq + i, conflict: undefined, verdict: undefined, said: undefined,
      }]));
      if (stored) await queue.markSent(first.key);
      await queue.update(changes);
    } else {
      if (stored) {
        const answer = await post(urls.undo(conflict.deal), { expected_seq: conflict.server.deal.seq });
        if (answer.status !== 200) {
          throw new Error(answer.data.error || `The server did not undo the entry (HTTP ${answer.status}).`);
        }
      }
      // Set aside, not removed: the scorer may still read them (listAside) and re-enter one.
      await queue.setAside(keys, DISCARD_MINE);
    }
    const done = { choice, kind: conflict.kind, keys };
    conflict = null;
    attempt = 0;
    await setState("idle");
    pump();
    return done;
  }

  /** The deal's seq on the server now (the 409's own figure if the server cannot be read). */
  async function currentSeq(known) {
    try {
      const view = await get(urls.deal(known.deal));
      if (view && Number.isInteger(view.seq)) return view.seq;
    } catch (error) { /* use the 409's figure */ }
    return known.server.seq;
  }

  return {
    start() {
      if (started) return pump();
      started = true;
      events.addEventListener("online", onOnline);
      events.addEventListener("offline", onOffline);
      return pump();
    },
    stop() {
      started = false;
      cancelTimer();
      events.removeEventListener("online", onOnline);
      events.removeEventListener("offline", onOffline);
      return running || Promise.resolve();
    },
    /** Something was enqueued, or a person asked to retry now. */
    kick() { cancelTimer(); return pump(); },
    resolve,
    withdraw,
    /** Resolves once the sync has nothing in flight (it may be waiting for a timer or `online`). */
    settled() { return running || Promise.resolve(); },
    get state() { return state; },
    get conflict() { return conflict; },
    get retryIn() { return retryIn; },
  };
}

/** Does a 2xx answer speak of this record? The API answers an entry with the entry, under
    its idempotency key, and a deal start with the deal's id. */
function confirms(record, data) {
  if (!data || typeof data !== "object") return false;
  if (record.kind === "deal_start") return Number.isInteger(data.id) && data.id > 0;
  return Boolean(data.entry) && data.entry.idempotency_key === record.key;
}

function plain(record) {
  const { conflict, ...rest } = record;
  return rest;
}
