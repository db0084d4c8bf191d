/* The recording screen: forms drive the JSON API (POST /api/deals/{id}/entries/) instead of
   posting the page. Every entry gets its idempotency key when it is created here and is kept
   in localStorage until the server has it, so a failed request, a reload or a dropped
   connection resends the very same entry (the server answers a repeated key with the stored
   entry, never twice). The screen says what is happening: saving, saved, retrying, offline.
   The live part of the screen is rendered by the server (in the reader's language) and
   swapped in after each change; watchers poll for changes every few seconds. */
(function () {
  "use strict";
  var screen = document.getElementById("deal");
  if (!screen) return;
  var T = JSON.parse(document.getElementById("i18n").textContent);
  var dealId = screen.dataset.deal;
  var canRecord = screen.dataset.canRecord === "1";
  var liveBox = document.getElementById("live");
  var syncLine = document.getElementById("sync");
  var storeKey = "kortos.pending." + dealId;
  var SUITS = "♠♣♦♥";
  var sending = false;
  var dirty = false;
  // Counts this screen's own changes: a poll that started before one of them is stale news.
  var localChanges = 0;
  var version = current().dataset.version;
  var previewTimer = null;

  function current() { return liveBox.querySelector("[data-live]"); }
  function seq() { return parseInt(current().dataset.seq, 10); }
  function fmt(template, params) {
    return template.replace(/%\((\w+)\)s/g, function (_m, key) { return params[key] == null ? "" : String(params[key]); });
  }
  function setSync(state, text) {
    syncLine.dataset.state = state;
    syncLine.textContent = text || "";
  }
  function csrf() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }
  function newKey() {
    if (window.crypto && crypto.randomUUID) {
      try { return crypto.randomUUID(); } catch (e) { /* not a secure context: fall through */ }
    }
    var bytes = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // -- the entry, from the form's field names (the server's payload_from_form reads the same) ----
  function intOrText(value) {
    var text = String(value).trim();
    if (text === "") return null;
    return /^-?\d+$/.test(text) ? parseInt(text, 10) : text;
  }
  function payloadFrom(form) {
    var payload = {};
    var rounds = {};
    var byName = {};
    var order = [];
    new FormData(form).forEach(function (value, name) {
      if (!(name in byName)) { byName[name] = []; order.push(name); }
      byName[name].push(String(value));
    });
    order.forEach(function (name) {
      if (name.indexOf("f:") !== 0) return;
      var parts = name.split(":");
      var field = parts[1], kind = parts[2], values = byName[name];
      var lastValue = values[values.length - 1];
      if (kind === "str") payload[field] = lastValue.trim();
      else if (kind === "int") payload[field] = intOrText(lastValue);
      else if (kind === "ints") payload[field] = values.map(intOrText);
      else if (kind === "strs") payload[field] = values.map(function (v) { return v.trim(); });
      else if (kind === "round" && /^\d+$/.test(parts[3] || "")) {
        (rounds[field] = rounds[field] || {})[parseInt(parts[3], 10)] = values.map(function (v) { return v.trim() || null; });
      }
    });
    Object.keys(rounds).forEach(function (field) {
      payload[field] = Object.keys(rounds[field]).map(Number).sort(function (a, b) { return a - b; })
        .map(function (i) { return rounds[field][i]; });
    });
    return payload;
  }

  // -- the pending entry, kept on this device until the server has it -----------------------------
  function loadPending() {
    try { return JSON.parse(localStorage.getItem(storeKey) || "null"); } catch (e) { return null; }
  }
  function savePending(pending) {
    try { localStorage.setItem(storeKey, JSON.stringify(pending)); } catch (e) { /* private mode: memory only */ }
  }
  function clearPending() {
    try { localStorage.removeItem(storeKey); } catch (e) { /* nothing kept */ }
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        return { status: response.status, data: data };
      });
    });
  }

  function submitEntry(form) {
    if (sending) return;
    clearErrors();
    var pending = {
      form: form.id, payload: payloadFrom(form), key: newKey(), expected_seq: seq(), at: Date.now()
    };
    savePending(pending);
    send(pending, 1);
  }

  function send(pending, attempt) {
    sending = true;
    localChanges += 1;
    if (attempt === 1) setSync("saving", T.saving);
    var body = Object.assign({}, pending.payload, { idempotency_key: pending.key, expected_seq: pending.expected_seq });
    post(screen.dataset.apiEntries, body).then(function (result) {
      if (result.status === 200 || result.status === 201) {
        clearPending();
        sending = false;
        dirty = false;
        setSync("saved", T.saved);
        return refresh().then(showVerdict);
      }
      if (result.status >= 500 || result.status === 429) {
        return retryLater(pending, attempt, fmt(T.server_error, { status: result.status }));
      }
      // Refused (400), not allowed (403/404) or stale (409): nothing was stored.
      clearPending();
      sending = false;
      setSync("error", "");
      var message = (result.data && result.data.error) || ("HTTP " + result.status);
      if (result.status === 409) {
        return refresh().then(function () { showError(pending.form, message, pending.payload); });
      }
      showError(pending.form, message, pending.payload);
    }).catch(function () {
      retryLater(pending, attempt, navigator.onLine === false ? T.offline : T.retrying);
    });
  }

  function retryLater(pending, attempt, message) {
    setSync(navigator.onLine === false ? "offline" : "retrying", message);
    var delay = Math.min(15000, 1000 * Math.pow(2, attempt - 1));
    var timer = setTimeout(function () { window.removeEventListener("online", now); send(pending, attempt + 1); }, delay);
    function now() { clearTimeout(timer); window.removeEventListener("online", now); send(pending, attempt + 1); }
    window.addEventListener("online", now);
  }

  function undo(form) {
    if (sending) return;
    clearErrors();
    sending = true;
    localChanges += 1;
    setSync("saving", T.undoing);
    var undone = null;
    try { undone = JSON.parse(form.dataset.payload || "null"); } catch (e) { undone = null; }
    post(screen.dataset.apiUndo, { expected_seq: seq() }).then(function (result) {
      sending = false;
      if (result.status === 200) {
        setSync("saved", T.undone);
        return refresh().then(function () { restoreForm(undone); });
      }
      setSync("error", "");
      var message = (result.data && result.data.error) || ("HTTP " + result.status);
      if (result.status === 409) return refresh().then(function () { showError("form-undo", message); });
      showError("form-undo", message);
    }).catch(function () {
      sending = false;
      setSync("error", T.retrying);
      showError("form-undo", T.offline);
    });
  }

  function nextDeal(form) {
    if (sending) return;
    clearErrors();
    sending = true;
    setSync("saving", T.starting);
    var dealer = form.querySelector('input[name="dealer"]:checked');
    post(screen.dataset.apiNext, dealer ? { dealer: parseInt(dealer.value, 10) } : {}).then(function (result) {
      sending = false;
      if (result.status === 201 && result.data.id) {
        window.location.assign(screen.dataset.dealUrlTemplate.replace("/0/", "/" + result.data.id + "/"));
        return;
      }
      setSync("error", "");
      showError("form-next", (result.data && result.data.error) || ("HTTP " + result.status));
    }).catch(function () {
      sending = false;
      form.submit(); // the page's own form does the same without the API
    });
  }

  // -- errors next to the control that caused them ---------------------------------------------------
  function clearErrors() {
    liveBox.querySelectorAll("[data-error-for], [data-error-for-player], [data-error-for-term]").forEach(function (slot) {
      slot.textContent = "";
    });
    liveBox.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
  }

  function showError(formId, message) {
    var key = String(formId || "").replace(/^form-/, "");
    var form = document.getElementById("form-" + key);
    var target = null;
    if (form) {
      // A refusal that names exactly one player goes next to that player's input.
      var matches = [];
      form.querySelectorAll("[data-error-for-player]").forEach(function (slot) {
        var name = slot.dataset.errorForPlayer;
        if (name && message.indexOf(name) >= 0) matches.push(slot);
      });
      matches = matches.filter(function (slot) {
        return !matches.some(function (other) {
          return other !== slot && other.dataset.errorForPlayer.indexOf(slot.dataset.errorForPlayer) >= 0;
        });
      });
      var names = matches.map(function (s) { return s.dataset.errorForPlayer; });
      if (matches.length === 1 && names.length === 1) target = matches[0];
      if (!target) target = termSlot(form, message);
      if (!target) target = form.querySelector('[data-error-for="' + key + '"]');
    }
    if (!target) target = liveBox.querySelector('[data-error-for="' + key + '"]') || liveBox.querySelector('[data-error-for="undo"]');
    if (!target) { setSync("error", message); return; }
    target.textContent = message;
    var row = target.closest("[data-player-name], .slot, form");
    var input = row && row.querySelector("input:not([type=hidden]):not([type=radio])");
    if (input && target.hasAttribute("data-error-for-player")) input.setAttribute("aria-invalid", "true");
    // One refusal at a time: the preview's own copy of it goes.
    if (form) form.querySelectorAll("[data-preview-box]").forEach(function (box) { box.hidden = true; });
    target.scrollIntoView({ block: "nearest" });
  }

  // The control a refusal is about: the first slot claiming a field whose word (the same word the
  // server put in the message, T.words) appears in it.
  function termSlot(form, message) {
    var text = message.toLowerCase();
    var words = T.words || {};
    var named = Object.keys(words).filter(function (k) { return words[k] && text.indexOf(words[k].toLowerCase()) >= 0; });
    if (!named.length) return null;
    return Array.prototype.find.call(form.querySelectorAll("[data-error-for-term]"), function (slot) {
      return slot.dataset.errorForTerm.split(" ").some(function (k) { return named.indexOf(k) >= 0; });
    }) || null;
  }

  // After an entry the referee's verdict is what the scorer reads next: bring it into view.
  function showVerdict() {
    var verdict = liveBox.querySelector("[data-conclusion]") || liveBox.querySelector("[data-finished]");
    if (!verdict) return;
    var box = verdict.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) verdict.scrollIntoView({ block: "start" });
  }

  // Undo takes an entry back: its values go back into the form they came from, to fix and resend.
  function restoreForm(payload) {
    if (!payload || typeof payload !== "object" || !payload.type) return;
    var form = Array.prototype.find.call(liveBox.querySelectorAll("form[data-entry]"), function (f) {
      var kind = f.querySelector('input[name="f:type:str"]');
      return kind && kind.value === payload.type;
    });
    if (!form) return;
    var details = form.closest("details");
    if (details) details.open = true;
    Object.keys(payload).forEach(function (field) {
      if (field === "type") return;
      var value = payload[field];
      var prefix = 'input[name^="f:' + field + ':"]';
      var radios = form.querySelectorAll(prefix + "[type=radio]");
      if (radios.length) {
        radios.forEach(function (r) { r.checked = value != null && r.value === String(value); });
        return;
      }
      if (field === "rounds" && Array.isArray(value)) { restoreRounds(form, value); return; }
      var values = Array.isArray(value) ? value : [value];
      var inputs = Array.prototype.filter.call(form.querySelectorAll(prefix), function (i) { return i.type !== "hidden"; });
      inputs.forEach(function (input, i) {
        if (i < values.length && !input.readOnly) input.value = values[i] == null ? "" : String(values[i]);
      });
    });
    dirty = true;
    form.querySelectorAll(".stepper input").forEach(syncStepper);
    if (form.hasAttribute("data-preview")) { velniasSync(form); schedulePreview(form); }
    if (form.hasAttribute("data-out")) michiganOutSync(form);
    if (form.hasAttribute("data-slots")) markActive(form, activeInput(form));
  }
  function restoreRounds(form, rounds) {
    rounds.forEach(function (cards, index) {
      if (!Array.isArray(cards)) return;
      var row = form.querySelector('[data-round="' + index + '"]');
      if (!row) {
        addRound(form, index, cards, cards.map(function (c) { return c == null; }), [], null);
        return;
      }
      row.querySelectorAll("[data-card-input]").forEach(function (input, i) {
        if (i < cards.length && !input.readOnly) input.value = cards[i] == null ? "" : String(cards[i]);
      });
    });
  }

  // -- swapping in the server's rendering of the new state ------------------------------------------
  function swap(html) {
    var open = {};
    liveBox.querySelectorAll("details[data-keep-open]").forEach(function (d) { open[d.dataset.keepOpen] = d.open; });
    liveBox.innerHTML = html;
    liveBox.querySelectorAll("details[data-keep-open]").forEach(function (d) {
      if (d.dataset.keepOpen in open && !d.querySelector(".error:not(:empty)")) d.open = open[d.dataset.keepOpen];
    });
    version = current().dataset.version;
    dirty = false;
    setup();
  }

  // This screen's own refresh after its own change: a poll in flight meanwhile (or started while
  // it runs) would bring the same news first and call it "another device", so it stands aside.
  var refreshing = 0;
  function refresh() {
    localChanges += 1;
    refreshing += 1;
    return fetch(screen.dataset.liveUrl, { credentials: "same-origin", cache: "no-store" }).then(function (response) {
      if (response.status !== 200) return;
      return response.text().then(swap);
    }).catch(function () { /* the next poll brings it */ }).then(function () { refreshing -= 1; });
  }

  function poll() {
    if (sending || refreshing || document.hidden) return;
    var mark = localChanges;
    // The version this screen shows, as a validator: the server answers 304 (nothing rendered)
    // while it is still the deal's; the browser hands a 304 of a request that carries its own
    // validator straight to this page, so no cached copy is ever mistaken for news.
    fetch(screen.dataset.liveUrl, { credentials: "same-origin", headers: { "If-None-Match": '"' + version + '"' } })
      .then(function (response) {
        // This screen changed the deal meanwhile: its own refresh shows that, not "another device".
        if (mark !== localChanges || refreshing) return;
        var running = response.headers.get("X-Running-Deal");
        var finished = current().dataset.status === "finished";
        if (running && running !== dealId && finished && !dirty) {
          window.location.assign(screen.dataset.dealUrlTemplate.replace("/0/", "/" + running + "/"));
          return;
        }
        if (response.status !== 200 || sending || response.headers.get("X-Deal-Version") === version) return;
        return response.text().then(function (html) {
          var wasDirty = dirty;
          swap(html);
          setSync("idle", wasDirty ? T.changed_elsewhere : T.updated);
        });
      }).catch(function () { /* offline: try again later */ });
  }

  // -- card pads and slots -----------------------------------------------------------------------------
  function splitCard(value) {
    var text = String(value || "").trim();
    var suit = "";
    if (text && SUITS.indexOf(text.charAt(text.length - 1)) >= 0) { suit = text.charAt(text.length - 1); text = text.slice(0, -1); }
    else if (text && SUITS.indexOf(text.charAt(0)) >= 0) { suit = text.charAt(0); text = text.slice(1); }
    return { rank: text.trim(), suit: suit };
  }
  function slotsOf(form) { return Array.prototype.slice.call(form.querySelectorAll("[data-card-input]")); }
  function activeInput(form) {
    var slot = form.querySelector(".slot.is-active [data-card-input]");
    return slot || slotsOf(form).find(function (i) { return !i.value && !i.disabled && !i.readOnly; }) || slotsOf(form)[0];
  }
  function markActive(form, input) {
    form.querySelectorAll(".slot.is-active").forEach(function (s) { s.classList.remove("is-active"); });
    if (!input) return;
    var slot = input.closest(".slot");
    if (slot) slot.classList.add("is-active");
    updatePad(form, input);
  }
  function updatePad(form, input) {
    var slot = input && input.closest(".slot");
    var played = slot && slot.dataset.played ? slot.dataset.played.split(" ") : [];
    var allowed = slot && slot.dataset.allowed ? slot.dataset.allowed.split(" ") : null;
    form.querySelectorAll("[data-rank-pad] [data-rank]").forEach(function (button) {
      var rank = button.dataset.rank;
      var blocked = played.indexOf(rank) >= 0 || (allowed !== null && allowed.indexOf(rank) < 0 && rank !== "X");
      button.setAttribute("aria-disabled", blocked ? "true" : "false");
    });
  }
  function needsSuit(input) { return input.hasAttribute("data-needs-suit"); }
  function isRank(form, text) {
    var typed = String(text || "").trim().toUpperCase();
    if (!typed) return false;
    return Array.prototype.some.call(form.querySelectorAll("[data-rank-pad] [data-rank]"), function (button) {
      return button.dataset.rank.toUpperCase() === typed || button.textContent.trim().toUpperCase() === typed;
    });
  }
  // A typed rank is a whole card where suits do not count: the next empty slot takes the typing,
  // and after the last one the Record button (Enter records).
  function typedCard(form, input) {
    if (needsSuit(input) || slotsOf(form).length < 2 || !isRank(form, input.value)) return;
    var inputs = slotsOf(form).filter(function (i) { return !i.disabled && !i.readOnly; });
    var start = inputs.indexOf(input);
    for (var step = 1; step < inputs.length; step++) {
      var next = inputs[(start + step) % inputs.length];
      if (!next.value) { markActive(form, next); next.focus(); return; }
    }
    var record = document.querySelector('button[form="' + form.id + '"].primary') || form.querySelector("button[type=submit].primary");
    if (record) { markActive(form, null); record.focus(); }
  }
  function advance(form, input) {
    var inputs = slotsOf(form).filter(function (i) { return !i.disabled && !i.readOnly; });
    var start = inputs.indexOf(input);
    for (var step = 1; step <= inputs.length; step++) {
      var next = inputs[(start + step) % inputs.length];
      if (!next.value) { markActive(form, next); return; }
    }
    markActive(form, null);
    var msg = form.querySelector("[data-pad-msg]");
    if (msg && inputs.length > 1) msg.textContent = T.all_filled;
  }
  function padClick(button) {
    var form = button.closest("form");
    var input = activeInput(form);
    if (!input) return;
    var msg = form.querySelector("[data-pad-msg]");
    if (msg) msg.textContent = "";
    var slot = input.closest(".slot");
    if (button.hasAttribute("data-clear")) {
      input.value = "";
      markActive(form, input);
      return;
    }
    if (button.getAttribute("aria-disabled") === "true") {
      if (msg) {
        var name = slot ? slot.dataset.playerName : "";
        var reason = slot && slot.dataset.reason;
        msg.textContent = reason ? fmt(T.not_allowed, { rank: button.textContent, name: name, reason: reason })
          : fmt(T.already_played, { name: name, rank: button.textContent });
      }
      return;
    }
    var card = splitCard(input.value);
    if (button.dataset.rank != null) {
      card.rank = button.dataset.rank;
      // Only one card of that rank can come from this pile: the rank alone says which.
      var possible = slot && slot.dataset.possible ? slot.dataset.possible.split(" ") : [];
      var matching = possible.filter(function (text) { return splitCard(text).rank === card.rank; });
      if (matching.length === 1) card.suit = splitCard(matching[0]).suit;
    }
    if (button.dataset.suit != null) card.suit = button.dataset.suit;
    input.value = card.rank === "X" ? "X" : card.rank + card.suit;
    input.removeAttribute("aria-invalid");
    dirty = true;
    var complete = card.rank && (!needsSuit(input) || card.suit || card.rank === "X");
    if (complete && slotsOf(form).length > 1) advance(form, input);
    else markActive(form, input);
    if (form.hasAttribute("data-elgeta")) askAboutRounds(form);
  }

  // -- Elgeta: a finished round goes to the referee, who says who takes or asks for a tie-break --------
  function lastRoundComplete(form) {
    var rows = form.querySelectorAll("[data-round]");
    var last = rows[rows.length - 1];
    return Array.prototype.every.call(last.querySelectorAll("[data-card-input]"), function (input) {
      return input.value.trim() !== "" || input.hasAttribute("data-empty-ok");
    });
  }
  function askAboutRounds(form) {
    var box = form.querySelector("[data-preview-box]");
    if (!lastRoundComplete(form)) { if (box) box.hidden = true; return; }
    post(screen.dataset.previewUrl, payloadFrom(form)).then(function (result) {
      if (result.status === 200) {
        box.hidden = false;
        box.innerHTML = result.data.html;
        return;
      }
      var data = result.data || {};
      if (typeof data.next_round === "number") {
        box.hidden = true;
        addRound(form, data.next_round, data.prefill || [], data.empty || [], data.possible || [], data.error);
        if (lastRoundComplete(form)) askAboutRounds(form);  // the referee knew every card of it
        return;
      }
      box.hidden = true;
      clearErrors();
      showError(form.id, data.error || ("HTTP " + result.status));
    }).catch(function () { /* the referee answers again when the trick is recorded */ });
  }
  function addRound(form, index, prefill, empty, possible, reason) {
    var rows = form.querySelector("[data-rounds]");
    if (rows.querySelector('[data-round="' + index + '"]')) return;
    var row = rows.querySelector('[data-round="0"]').cloneNode(true);
    row.dataset.round = String(index);
    row.querySelector("legend").textContent = fmt(T.tie_round, { n: index + 1 });  // as the referee counts
    row.querySelectorAll(".slot").forEach(function (slot, position) {
      slot.classList.remove("is-active");
      slot.removeAttribute("data-allowed");
      if (possible[position]) slot.dataset.possible = possible[position];
      else slot.removeAttribute("data-possible");
      var input = slot.querySelector("[data-card-input]");
      var label = slot.querySelector("label");
      var id = "r" + index + "-" + position + "-" + input.id.split("-").pop();
      input.id = id;
      label.setAttribute("for", id);
      input.name = "f:rounds:round:" + index;
      input.value = prefill[position] || "";
      input.removeAttribute("aria-invalid");
      var note = slot.querySelector(".muted");
      if (note) note.remove();
      if (empty[position]) {
        input.readOnly = true;
        input.placeholder = "–";
        input.setAttribute("data-empty-ok", "");
        var span = document.createElement("span");
        span.className = "small muted";
        span.textContent = T.no_card;
        slot.appendChild(span);
      } else {
        input.readOnly = false;
        input.placeholder = "";
        input.removeAttribute("data-empty-ok");
      }
    });
    rows.appendChild(row);
    var msg = form.querySelector("[data-pad-msg]");
    if (msg && reason) msg.textContent = reason;
    var first = Array.prototype.find.call(row.querySelectorAll("[data-card-input]"), function (i) {
      return !i.value && !i.readOnly;
    });
    markActive(form, first || null);
  }

  // -- steppers -----------------------------------------------------------------------------------------
  // A stepper's buttons stay within the hand, but a value the scorer typed is never rewritten:
  // an impossible count goes to the referee as typed and is refused beside its field.
  function stepperBounds(input) {
    return {
      min: parseInt(input.dataset.min || "0", 10),
      max: parseInt(input.dataset.max || "99", 10),
    };
  }
  function syncStepper(input) {
    var bounds = stepperBounds(input);
    var value = parseInt(input.value, 10);
    var row = input.closest(".stepper");
    if (row) {
      var down = row.querySelector('[data-step="-1"]');
      var up = row.querySelector('[data-step="1"]');
      if (down) down.disabled = input.readOnly || (!isNaN(value) && value <= bounds.min);
      if (up) up.disabled = input.readOnly || (!isNaN(value) && value >= bounds.max);
    }
  }
  function step(button) {
    var input = document.getElementById(button.getAttribute("aria-controls"));
    if (!input || input.readOnly) return;
    var bounds = stepperBounds(input);
    var value = parseInt(input.value, 10);
    if (isNaN(value)) value = bounds.min;
    else value += parseInt(button.dataset.step, 10);
    // A tap moves towards the possible range, even from a typed value outside it.
    input.value = String(Math.max(bounds.min, Math.min(bounds.max, value)));
    syncStepper(input);
    dirty = true;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // -- Pašėlęs Velnias and Michigan: the caller's count follows the ending ---------------------------
  // The seat that went out (or emptied its hand) holds 0 cards: its field shows 0 and is locked.
  // Only a 0 put there this way is lifted when that seat changes; a value typed is kept as typed.
  function zeroSeat(form, seat, zero) {
    form.querySelectorAll("[data-count-seat]").forEach(function (input) {
      var mine = seat !== null && input.dataset.countSeat === String(seat);
      if (mine && zero) {
        if (!input.hasAttribute("data-auto-zero")) input.dataset.typed = input.value;
        input.dataset.min = "0";
        input.value = "0";
        input.readOnly = true;
        input.setAttribute("data-auto-zero", "");
      } else {
        input.dataset.min = "1";
        input.readOnly = false;
        if (input.hasAttribute("data-auto-zero")) {
          input.value = input.dataset.typed || "1";
          input.removeAttribute("data-auto-zero");
          delete input.dataset.typed;
        }
      }
      syncStepper(input);
    });
  }
  function velniasSync(form) {
    var condition = form.querySelector("[data-condition]:checked");
    var caller = form.querySelector("[data-caller-seat]:checked");
    var fieldset = form.querySelector("[data-caller]");
    var blocked = condition && condition.value === "blocked";
    if (fieldset) {
      fieldset.disabled = !!blocked;
      var help = fieldset.querySelector("[data-caller-help-blocked]");
      if (help) help.hidden = !blocked;
    }
    zeroSeat(form, caller && !blocked ? caller.value : null, condition && condition.value === "empty_hand");
  }
  function michiganOutSync(form) {
    var out = form.querySelector("[data-out-seat]:checked");
    zeroSeat(form, out ? out.value : null, true);
  }
  function schedulePreview(form) {
    clearTimeout(previewTimer);
    previewTimer = setTimeout(function () { runPreview(form); }, 200);
  }
  function runPreview(form) {
    var box = form.querySelector("[data-preview-box]");
    if (!box) return;
    var payload = payloadFrom(form);
    if (!payload.condition || (payload.condition !== "blocked" && payload.player == null)) {
      box.hidden = true;
      return;
    }
    post(screen.dataset.previewUrl, payload).then(function (result) {
      clearErrors();
      if (result.status === 200) { box.hidden = false; box.innerHTML = result.data.html; return; }
      box.hidden = true;
      showError(form.id, (result.data && result.data.error) || ("HTTP " + result.status));
    }).catch(function () { box.hidden = true; });
  }

  // -- wiring (delegated, so it survives every swap) -------------------------------------------------
  function setup() {
    liveBox.querySelectorAll("form[data-slots]").forEach(function (form) {
      markActive(form, activeInput(form));
    });
    liveBox.querySelectorAll(".stepper input").forEach(syncStepper);
    liveBox.querySelectorAll("form[data-preview]").forEach(velniasSync);
    liveBox.querySelectorAll("form[data-out]").forEach(michiganOutSync);
    liveBox.querySelectorAll("form[data-elgeta]").forEach(function (form) {
      if (canRecord && lastRoundComplete(form)) askAboutRounds(form);
    });
  }

  liveBox.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.hasAttribute("data-entry")) { event.preventDefault(); submitEntry(form); }
    else if (form.hasAttribute("data-undo")) { event.preventDefault(); undo(form); }
    else if (form.hasAttribute("data-next-deal")) { event.preventDefault(); nextDeal(form); }
  });
  liveBox.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) return;
    if (button.closest("[data-rank-pad], [data-suit-pad]")) { event.preventDefault(); padClick(button); }
    else if (button.hasAttribute("data-step")) { event.preventDefault(); step(button); }
  });
  liveBox.addEventListener("focusin", function (event) {
    var input = event.target.closest("[data-card-input]");
    if (input) markActive(input.closest("form"), input);
  });
  liveBox.addEventListener("change", function (event) {
    var form = event.target.closest("form");
    if (!form) return;
    if (form.hasAttribute("data-elgeta") && event.target.matches("[data-card-input]")) askAboutRounds(form);
    if (form.hasAttribute("data-entry")) dirty = true;
    // The scorer is answering the refusal: it goes until the referee says something again.
    if (form.hasAttribute("data-entry") && form.querySelector(".field-error:not(:empty), .error:not(:empty)")) clearErrors();
    if (event.target.matches(".stepper input")) syncStepper(event.target);
    if (form.hasAttribute("data-preview")) { velniasSync(form); schedulePreview(form); }
    if (form.hasAttribute("data-out")) michiganOutSync(form);
  });
  liveBox.addEventListener("input", function (event) {
    var form = event.target.closest("form[data-entry]");
    if (form) dirty = true;
    if (form && event.target.matches("[data-card-input]")) typedCard(form, event.target);
  });

  setup();
  var kept = loadPending();
  if (kept && canRecord) {
    setSync("retrying", T.resending);
    send(kept, 1);
  }
  setInterval(poll, canRecord ? 3000 : 2000);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) poll(); });
  // Back to this screen from the browser's history: it may show an older state, so ask at once.
  window.addEventListener("pageshow", function (event) { if (event.persisted) poll(); });
})();
