/* A page the service worker served from this device (it adds <meta name="kept-at">, when the
   server last answered for it) says so at its top: "Not connected: this screen is as this device
   last knew it, as of 21:14 (2 minutes ago)". The relative time ticks; the note goes as soon as
   the server answers the page again (the recording screen's connection.js says so with the
   "kortos:server-answered" event; a watching page's next update reloads nothing, so it too
   says it by that event). One job: that note. */

import { absoluteTime, fmt, relativeTime } from "./table/status.js";

const meta = document.querySelector('meta[name="kept-at"]');
const note = document.querySelector("[data-kept-note]");

if (meta && note) {
  const at = Number(meta.content) || 0;
  const language = document.documentElement.lang || "en";
  const say = () => {
    const now = Date.now();
    note.textContent = at > 0
      ? fmt(note.dataset.asOf, { time: absoluteTime(at, now, language), ago: relativeTime(at - now, language) })
      : note.dataset.unknown;
  };
  say();
  note.hidden = false;
  const ticking = setInterval(say, 10_000);
  document.addEventListener("kortos:server-answered", () => {
    clearInterval(ticking);
    note.hidden = true;
  }, { once: true });
}
