/* What every game's offline drawer (static/js/table/games/<game>.js) draws with: the offline
   sentences in the reader's language (the i18n JSON's offline_table: the server screen's msgids,
   the shared ones from web/pages/table_offline_text.py and the game's own from its
   referee/games/<game>.py), the players' names, the card notation, and a small element maker.
   One job: the words and the nodes the drawers share. */

import { S, fmt } from "./shared.js";

export { fmt };
export const RANKS_EN = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
export const LT_RANK = { J: "V", Q: "D", A: "T" };

export function t() { return S.T.offline_table || {}; }
export function names() { return S.T.names || []; }
export function nameOf(seat) { return seat == null ? "" : (names()[seat] ?? "?"); }
export function notation() { return S.screen.dataset.notation; }
export function showRank(rank) { return notation() === "lt" ? (LT_RANK[rank] || rank) : rank; }
export function counted(forms, n, params) {
  let category = "other";
  try { category = new Intl.PluralRules(document.documentElement.lang || "en").select(n); } catch (e) { /* other */ }
  return fmt(forms[category] ?? forms.other ?? forms.one, params);
}
export function andList(items) {
  if (items.length < 2) return items.join("");
  return fmt(t().and_list, { rest: items.slice(0, -1).join(", "), last: items[items.length - 1] });
}
export function signed(n) { return n > 0 ? "+" + n : n < 0 ? "−" + -n : "0"; }
export function signClass(n) { return n > 0 ? "pos" : n < 0 ? "neg" : "zero"; }
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "className") node.className = v; else node.setAttribute(k, v);
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

