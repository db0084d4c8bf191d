/* Rūkas on the tablet, offline: the verdict's sentences (as referee/games/rukas.py's
   RukasPages.explain), a trick's line in the entry list, and the redraw of the trick form, the
   last trick and the tricks so far. The drawer's shape is described in ../offline-view.js. */

import { RANKS_EN, counted, fmt, h, nameOf, showRank, t } from "../offline-draw.js";

export default {
  /** referee/games/rukas.py RukasPages.explain, sentence for sentence. */
  sentences(view, last) {
    const T = t();
    const rankOf = {};
    last.reveal_order.forEach((seat, i) => { rankOf[seat] = last.cards[i]; });
    const rank = (seat) => showRank(rankOf[seat]);
    const reason = last.reason || {};
    const reasons = [];
    if (reason.beaten) reasons.push(fmt(T.seven_beat_ace, { by: nameOf(reason.beaten.by), ace: nameOf(reason.beaten.ace) }));
    for (const group of reason.cancelled || []) {
      reasons.push(fmt(T.cancel, { rank: showRank(group.rank), names: group.seats.map(nameOf).join(", ") }));
    }
    const taker = last.taker;
    if (taker == null) {
      reasons.push(T.none_left);
      const sentences = [fmt(T.nobody_sentence, { reasons: reasons.join("; ") })];
      if (view.options.void_trick === "void") sentences.push(fmt(T.void_again, { name: nameOf(view.leader) }));
      else if (view.finished) sentences.push(T.lost_points);
      else sentences.push(fmt(T.waits, { count: view.pending }));
      return sentences;
    }
    const chain = reason.chain || [];
    if (reason.basis === "ace") reasons.push(T.ace_stands);
    else if (reason.basis === "seven_beat_ace" && chain.length) reasons.push(T.seven_would);
    else if (chain.length) reasons.push(fmt(T.highest, { rank: rank(chain[0]) }));
    for (let i = 0; i + 1 < chain.length; i++) {
      reasons.push(fmt(T.one_lower, { lower: rank(chain[i + 1]), name: nameOf(chain[i + 1]), higher: rank(chain[i]) }));
    }
    const low = Math.max(0, RANKS_EN.indexOf(rankOf[taker]));
    if (reason.basis !== "ace" && low > 0) reasons.push(fmt(T.none_below, { below: showRank(RANKS_EN[low - 1]), rank: rank(taker) }));
    const sentences = [fmt(T.takes_sentence, { name: nameOf(taker), rank: rank(taker), reasons: reasons.join("; ") })];
    if (last.carried) sentences.push(counted(T.carried, last.carried, { name: nameOf(taker), count: last.carried }));
    return sentences;
  },
  describe(payload) { return fmt(t().trick_entry, { cards: (payload.cards || []).map((c) => String(c).trim()).join(" ") }); },
  /** The last trick's cards, the next trick's form in reveal order, the tricks so far. */
  draw(live, view) {
    const T = t();
    const last = view.last;
    let reveal = live.querySelector('section[aria-labelledby="last-trick-h"]');
    const tricksBox = live.querySelector('section[aria-labelledby="deal-tricks-h"]');
    if (last) {
      const fresh = h("section", { className: "panel", "aria-labelledby": "last-trick-h" },
        h("h2", { id: "last-trick-h" }, fmt(T.trick_n, { n: view.tricks_played }) + ": ",
          h("span", { className: "taker" }, last.taker == null ? T.nobody_takes : fmt(T.takes, { name: nameOf(last.taker) }))),
        h("ol", { className: "reveal", "aria-label": (reveal && reveal.querySelector("ol")?.getAttribute("aria-label")) || "" },
          ...last.reveal_order.map((seat, i) => h("li", { className: "st-" + last.status[i] },
            h("span", { className: "rank" }, showRank(last.cards[i])), h("span", {}, nameOf(seat)),
            h("span", { className: "state" }, (T.status || {})[last.status[i]] || last.status[i])))));
      if (!fresh.querySelector("ol").getAttribute("aria-label")) fresh.querySelector("ol").removeAttribute("aria-label");
      if (reveal) reveal.replaceWith(fresh);
      else if (tricksBox) tricksBox.before(fresh);
      reveal = fresh;
    } else if (reveal) {
      reveal.remove();
    }
    const form = live.querySelector("form#form-trick");
    if (form && view.finished) {
      live.querySelectorAll('.sticky-action:has(button[form="form-trick"])').forEach((bar) => bar.remove());
      form.remove();
    } else if (form) {
      const order = Array.from({ length: view.players }, (_x, step) => (view.leader + step) % view.players);
      const box = form.querySelector(".slots");
      const slots = Array.from(form.querySelectorAll(".slot"));
      order.forEach((seat, position) => {
        const slot = slots.find((s) => s.querySelector("[data-card-input]")?.id === "card-" + seat);
        if (!slot) return;
        slot.dataset.played = (view.played[seat] || []).map(showRank).join(" ");
        const pos = slot.querySelector(".pos");
        if (pos) pos.textContent = position + 1 + ".";
        box.append(slot);
      });
      const heading = form.querySelector("h2");
      if (heading) {
        heading.textContent = fmt(T.trick_of_13, { n: view.tricks_played + 1 }) + " · " +
          fmt(T.reveals_first, { name: nameOf(view.leader) });
      }
    }
    if (tricksBox) {
      tricksBox.querySelectorAll(".totals li").forEach((li, seat) => {
        const turn = seat === view.leader && !view.finished;
        li.classList.toggle("is-turn", turn);
        const value = li.querySelector(".value");
        if (value) value.textContent = String(view.tricks[seat]);
        li.querySelector(".sub")?.remove();
        if (turn) li.append(h("span", { className: "sub" }, T.reveals_first_short));
      });
      let notice = tricksBox.querySelector(".notice");
      if (view.pending) {
        if (!notice) { notice = h("p", { className: "notice" }); tricksBox.append(notice); }
        notice.textContent = counted(T.pending, view.pending, { n: view.pending });
      } else if (notice) notice.remove();
    }
  },
  running(view) { return view.tricks; },
  /** A legal trick (each seat's first rank not played yet), to warm the engine up with. */
  sample(view) {
    const order = Array.from({ length: view.players }, (_x, step) => (view.leader + step) % view.players);
    return { type: "trick", cards: order.map((seat) => showRank(RANKS_EN.find((r) => !(view.played[seat] || []).includes(r)))) };
  },
};
