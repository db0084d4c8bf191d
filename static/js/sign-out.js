/* Signing out on a tablet that may have no network (one job). Online, the sign-out form posts
   as always. Without the network the browser would show its own "no internet" page, so the
   tablet asks the server first (/healthz) and, when nothing answers, says what will happen and
   does what it can itself: the screens kept on this device are forgotten at once (the service
   worker drops them), the entries still waiting stay in the device's queue (they are sent after
   the same scorer signs in again; anyone else who signs in sees them waiting), and the sign-out
   itself reaches the server as soon as it answers (the next page this device opens posts it).
   The words come from base.html (data-* of the sign-out form), in the page's language. */

import { openQueue } from "./offline/queue.js";

const PENDING = "kortos.signOutPending";
const ASK_MS = 3000;

function csrf() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

/** Does the server answer now? (A hall's Wi-Fi can be "online" and answer nothing.) */
async function serverAnswers() {
  if (navigator.onLine === false) return false;
  const timeout = new Promise((resolve) => setTimeout(() => resolve(false), ASK_MS));
  const asked = fetch("/healthz", { cache: "no-store", credentials: "same-origin" }).then((r) => r.ok, () => false);
  return Promise.race([asked, timeout]);
}

async function waitingEntries() {
  try {
    const queue = await openQueue();
    const n = await queue.count();
    queue.close();
    return n;
  } catch (error) {
    return 0;
  }
}

function fmt(template, params) {
  return String(template || "").replace(/%\((\w+)\)s/g, (_m, key) => (params[key] == null ? "" : String(params[key])));
}

function dialog(form, waiting) {
  const words = form.dataset;
  const box = document.createElement("dialog");
  box.className = "sign-out-offline";
  box.setAttribute("aria-labelledby", "sign-out-title");
  const title = document.createElement("h2");
  title.id = "sign-out-title";
  title.tabIndex = -1;
  title.textContent = words.offlineTitle;
  const what = document.createElement("p");
  what.textContent = words.offlineForget;
  const kept = document.createElement("p");
  kept.textContent = waiting ? fmt(words.offlineWaiting, { n: waiting }) : words.offlineNothing;
  const later = document.createElement("p");
  later.textContent = words.offlineLater;
  const yes = document.createElement("button");
  yes.type = "button";
  yes.className = "big danger";
  yes.textContent = words.offlineYes;
  const back = document.createElement("button");
  back.type = "button";
  back.className = "big";
  back.textContent = words.offlineBack;
  const row = document.createElement("div");
  row.className = "row";
  row.append(yes, back);
  box.append(title, what, kept, later, row);
  document.body.append(box);
  box.showModal();
  title.focus();
  return new Promise((resolve) => {
    yes.addEventListener("click", () => resolve({ box, title, what, kept, later, row, yes: true }));
    back.addEventListener("click", () => { box.close(); box.remove(); resolve({ yes: false }); });
  });
}

/** Signed out here without the network: the kept screens go now, the rest when it answers. */
async function signOutHere(form) {
  const user = document.querySelector('meta[name="app-user"]')?.content || "";
  try { localStorage.setItem(PENDING, user); } catch (error) { /* the next sign-in still replaces the user */ }
  const worker = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (worker) worker.postMessage({ type: "signed-out" });
  try { sessionStorage.clear(); } catch (error) { /* nothing kept there */ }
}

function watchSignOut() {
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-sign-out")) return;
    if (form.dataset.confirmed === "1") return;
    event.preventDefault();
    if (await serverAnswers()) {
      form.dataset.confirmed = "1";
      form.requestSubmit();
      return;
    }
    const answer = await dialog(form, await waitingEntries());
    if (!answer.yes) return;
    await signOutHere(form);
    // The dialog stays as the page: what happened, and the way to sign in once there is a network.
    answer.title.textContent = form.dataset.offlineDoneTitle;
    answer.what.textContent = form.dataset.offlineDone;
    answer.row.replaceChildren();
    const signIn = document.createElement("a");
    signIn.className = "button big primary";
    signIn.href = "/login/";
    signIn.textContent = form.dataset.offlineSignIn;
    answer.row.append(signIn);
    document.querySelector("main")?.setAttribute("inert", "");
  });
}

/** A sign-out made without the network reaches the server from the first page that loads with
    it (still signed in there: the server never heard). */
async function finishPendingSignOut() {
  let pending = null;
  try { pending = localStorage.getItem(PENDING); } catch (error) { return; }
  if (pending === null) return;
  const user = document.querySelector('meta[name="app-user"]')?.content;
  if (user === undefined) return;  // the offline page speaks for no one
  if (user !== pending) {  // someone signed in (or no one is): nothing left to do
    try { localStorage.removeItem(PENDING); } catch (error) { /* nothing kept */ }
    return;
  }
  const response = await fetch("/logout/", {
    method: "POST", credentials: "same-origin", headers: { "X-CSRFToken": csrf() },
  }).catch(() => null);
  if (!response) return;  // still no network: the next page tries again
  try { localStorage.removeItem(PENDING); } catch (error) { /* nothing kept */ }
  location.assign("/login/");
}

watchSignOut();
finishPendingSignOut();
