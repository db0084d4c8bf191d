/* What every module of the recording screen shares: the screen's elements and its few
   changing facts (one object, set up once by screen.js), the sentences in the reader's
   language, and the API's POST with the CSRF token. */

import { reported } from "./connection.js";

export const S = {
  screen: null,
  liveBox: null,
  syncLine: null,
  T: {},
  dealId: "",
  canRecord: false,
  // A request of this screen is in flight (an entry, an undo, a deal start).
  sending: false,
  // The scorer has typed or tapped something not yet recorded.
  dirty: false,
  // Counts this screen's own changes: a poll that started before one of them is stale news.
  localChanges: 0,
  // How many of this screen's own refreshes are in flight.
  refreshing: 0,
  // The deal version the screen shows (the poll's validator).
  version: "",
};

export function init(screen) {
  S.screen = screen;
  S.liveBox = document.getElementById("live");
  S.syncLine = document.getElementById("sync");
  S.T = JSON.parse(document.getElementById("i18n").textContent);
  S.dealId = screen.dataset.deal;
  S.canRecord = screen.dataset.canRecord === "1";
  S.version = current().dataset.version;
}

/** The live part of the screen the server rendered last (or the offline path drew). */
export function current() { return S.liveBox.querySelector("[data-live]"); }

/** Who is signed in on this page (base.html's app-user meta: the user's id), or null. */
export function appUser() {
  const meta = document.querySelector('meta[name="app-user"]');
  return meta && meta.content ? meta.content : null;
}

/** The deal's entry count as the screen shows it: the next entry's expected_seq. */
export function seq() { return parseInt(current().dataset.seq, 10); }

export function fmt(template, params) {
  return String(template || "").replace(/%\((\w+)\)s/g, (_m, key) => (params[key] == null ? "" : String(params[key])));
}

export function setSync(state, text) {
  S.syncLine.dataset.state = state;
  // The line no longer shows the sync's status: its next one is written whole (status.js).
  delete S.syncLine.dataset.line;
  S.syncLine.textContent = text || "";
}

export function csrf() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (match) return decodeURIComponent(match[1]);
  const field = document.querySelector("input[name=csrfmiddlewaretoken]");
  return field ? field.value : "";
}

export function newKey() {
  if (window.crypto && crypto.randomUUID) {
    try { return crypto.randomUUID(); } catch (e) { /* not a secure context: fall through */ }
  }
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** POST JSON to the API; answers {status, data} (a network failure rejects). */
export function post(url, body) {
  return reported(fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf() },
    body: JSON.stringify(body),
  })).then((response) => response.json().catch(() => ({})).then((data) => ({ status: response.status, data })));
}

/** The URL of a deal's recording screen (the server's id). */
export function dealUrl(id) {
  return S.screen.dataset.dealUrlTemplate.replace("/0/", "/" + id + "/");
}
