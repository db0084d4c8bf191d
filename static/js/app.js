/* Small enhancements shared by every page: theme and deck switches, the session form's house
   rules, and live updates for pages that watch a table. Everything here is
   optional: the pages work without it. */
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");

  function setCookie(name, value) {
    document.cookie = name + "=" + encodeURIComponent(value) + "; path=/; max-age=31536000; samesite=lax";
  }

  function onReady(fn) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn);
    else fn();
  }

  onReady(function () {
    // Theme: dark -> light -> auto (follow the system) -> dark.
    var themeButton = document.querySelector("[data-theme-toggle]");
    if (themeButton) {
      themeButton.addEventListener("click", function () {
        var order = ["theme-dark", "theme-light", "theme-auto"];
        var current = order.find(function (c) { return root.classList.contains(c); }) || "theme-dark";
        var next = order[(order.indexOf(current) + 1) % order.length];
        order.forEach(function (c) { root.classList.remove(c); });
        root.classList.add(next);
        setCookie("theme", next.replace("theme-", ""));
        themeButton.setAttribute("title", next.replace("theme-", ""));
      });
    }
    var deckButton = document.querySelector("[data-deck-toggle]");
    if (deckButton) {
      deckButton.addEventListener("click", function () {
        var on = root.classList.toggle("deck-four");
        deckButton.setAttribute("aria-pressed", on ? "true" : "false");
        setCookie("deck", on ? "4" : "2");
      });
    }
    sessionForm();
    dealStartForm();
    watchPage();
    document.addEventListener("submit", function (event) {
      var form = event.target;
      if (!form.hasAttribute || !form.hasAttribute("data-api-post")) return;
      event.preventDefault();
      var token = form.querySelector("input[name=csrfmiddlewaretoken]");
      fetch(form.action, {
        method: "POST", credentials: "same-origin",
        headers: { "Accept": "application/json", "X-CSRFToken": token ? token.value : "" }
      }).then(function () { window.location.reload(); });
    });
  });

  // -- the session start form ----------------------------------------------------------------
  function sessionForm() {
    var form = document.getElementById("session-form");
    if (!form) return;
    // The seat order is static/js/seats.js (this page only).
    var games = form.querySelectorAll("[data-game-choice]");
    function showRules() {
      var chosen = form.querySelector("[data-game-choice]:checked");
      form.querySelectorAll("[data-game-rules]").forEach(function (fs) {
        var on = chosen && fs.dataset.gameRules === chosen.value;
        fs.hidden = !on;
        fs.disabled = !on;
      });
    }
    games.forEach(function (g) { g.addEventListener("change", showRules); });
    showRules();
  }

  // -- the dealer choice: name the first player as the dealer changes ------------------------------
  function dealStartForm() {
    var form = document.getElementById("deal-start") || document.getElementById("form-next");
    if (!form) return;
    var label = form.querySelector("[data-first-player] strong");
    var radios = form.querySelectorAll('input[name="dealer"]');
    if (!label || !radios.length) return;
    radios.forEach(function (r) {
      r.addEventListener("change", function () {
        var i = (Array.prototype.indexOf.call(radios, r) + 1) % radios.length;
        label.textContent = radios[i].closest("label").querySelector(".face").firstChild.textContent.trim();
      });
    });
  }

  // -- pages that watch a table (session page, leaderboard): swap in the new content ---------------
  function watchPage() {
    var box = document.querySelector("[data-watch]");
    if (!box) return;
    var url = box.dataset.watch;
    var version = box.dataset.version || "";
    var every = parseInt(box.dataset.every || "3000", 10);
    var busy = false;
    function tick() {
      if (busy || document.hidden) return;
      busy = true;
      // The version shown goes back as a validator: 304 (nothing rendered) while it still holds.
      // ``v`` stays in the address: the leaderboard answers its board alone when it is there.
      var headers = { "X-Requested-With": "fetch" };
      if (version) headers["If-None-Match"] = '"' + version + '"';
      fetch(url + (url.indexOf("?") < 0 ? "?" : "&") + "v=" + encodeURIComponent(version), {
        credentials: "same-origin", headers: headers
      }).then(function (response) {
        // The server answered: a page the tablet served from itself is the server's again.
        if (!response.headers.get("X-From-Device")) document.dispatchEvent(new CustomEvent("kortos:server-answered"));
        if (response.status === 200) {
          version = response.headers.get("X-Version") || version;
          return response.text().then(function (html) {
            var open = {};
            box.querySelectorAll("details[data-keep-open]").forEach(function (d) { open[d.dataset.keepOpen] = d.open; });
            box.innerHTML = html;
            box.querySelectorAll("details[data-keep-open]").forEach(function (d) {
              if (d.dataset.keepOpen in open) d.open = open[d.dataset.keepOpen];
            });
            box.dataset.version = version;
            var note = document.querySelector("[data-watch-note]");
            if (note) note.textContent = note.dataset.updated || "";
          });
        }
      }).catch(function () { /* the next tick tries again */ }).then(function () { busy = false; });
    }
    setInterval(tick, every);
    document.addEventListener("visibilitychange", function () { if (!document.hidden) tick(); });
  }
})();
