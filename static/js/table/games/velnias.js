/* Pašėlęs Velnias on the tablet, offline: the ending's headline (as referee/games/velnias.py
   explains it), the ending's line in the entry list, and who pays whom once the deal is over.
   On the screen, online or not: the caller's count follows the ending, and the referee's
   preview of the payments waits for an ending it can judge. The drawer's shape is described in
   ../offline-view.js and ../room.js. */

import { fmt, h, nameOf, t } from "../offline-draw.js";
import { zeroSeat } from "../pad.js";

export default {
  /** The ending form: a blocked game has no caller (its fieldset is disabled and says why);
      the caller of an emptied hand holds 0 cards. */
  syncForm(form) {
    if (!form.hasAttribute("data-preview")) return;
    const condition = form.querySelector("[data-condition]:checked");
    const caller = form.querySelector("[data-caller-seat]:checked");
    const fieldset = form.querySelector("[data-caller]");
    const blocked = condition && condition.value === "blocked";
    if (fieldset) {
      fieldset.disabled = !!blocked;
      const help = fieldset.querySelector("[data-caller-help-blocked]");
      if (help) help.hidden = !blocked;
    }
    zeroSeat(form, caller && !blocked ? caller.value : null, condition && condition.value === "empty_hand");
  },
  /** The payments can be previewed once the ending is chosen, and its caller unless blocked. */
  previewReady(payload) {
    return Boolean(payload.condition) && (payload.condition === "blocked" || payload.player != null);
  },
  sentences(_view, last) { return [fmt(t().headline[last.condition], { name: nameOf(last.player) })]; },
  describe(payload) {
    const T = t();
    const condition = (T.conditions || {})[payload.condition] || String(payload.condition);
    if (payload.player == null) return fmt(T.end_entry, { condition });
    return fmt(T.end_entry_who, { condition, name: nameOf(payload.player) });
  },
  /** The deal's end: the form goes, who pays whom comes. */
  draw(live, view) {
    const form = live.querySelector("form#form-end");
    if (!view.finished || !view.last) return;
    const T = t();
    const rows = (view.last.payments || []).map((p) => {
      const payer = nameOf(p.from), payee = nameOf(p.to);
      const why = T.why || {};
      const reason = p.why === "cards_left" ? fmt(why.cards_left, { name: payer })
        : p.why === "last_card" ? why.last_card
          : p.why === "fewer_cards" ? fmt(why.fewer_cards, { name: payee }) : fmt(why.more_cards, { name: payer });
      return h("li", {}, h("strong", {}, payer), " → ", h("strong", {}, payee), ": " + p.points + " ",
        h("span", { className: "muted" }, "(" + reason + ")"));
    });
    const section = h("section", { className: "panel", "aria-labelledby": "payments-h" },
      h("h2", { id: "payments-h" }, T.who_pays), h("ul", { className: "list-plain" }, ...rows));
    const old = live.querySelector('section[aria-labelledby="payments-h"]');
    if (old) old.replaceWith(section);
    else if (form) form.before(section);
    else live.querySelector("[data-finished], section[aria-labelledby=totals-h]")?.before(section);
    live.querySelectorAll('.sticky-action:has(button[form="form-end"])').forEach((bar) => bar.remove());
    if (form) form.remove();
  },
  running() { return null; },
  sample(view) { return { type: "end", condition: "blocked", player: null, hand_counts: Array(view.players).fill(1) }; },
};
