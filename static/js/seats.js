/* Seat order at a session's start: tap the players in the order they sit (a tap again takes
   a player out), then drag in "At the table", or use its arrows, to change the order.

   The form still posts what it posts without JavaScript (a tick and a typed seat number per
   player): this only keeps those in step with the taps, so the server reads one thing. */
(function () {
  "use strict";

  function onReady(fn) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn);
    else fn();
  }

  onReady(function () {
    var form = document.getElementById("session-form");
    var list = form && form.querySelector("[data-seat-order]");
    if (!list) return;
    var checks = Array.prototype.slice.call(form.querySelectorAll("[data-seat-check]"));
    var empty = form.querySelector("[data-seat-empty]");
    var said = form.querySelector("[data-seat-said]");

    function id(check) { return check.dataset.seatCheck; }
    function byId(pk) { return checks.find(function (c) { return id(c) === pk; }); }
    function typed(check) { return form.querySelector('[data-seat-number="' + id(check) + '"]'); }
    function badge(check) { return form.querySelector('[data-seat-badge="' + id(check) + '"]'); }
    function name(check) { return check.closest("label").querySelector("[data-seat-name]").textContent.trim(); }
    function words(key, values) {
      return list.dataset[key].replace(/\{(\w+)\}/g, function (_, k) { return values[k]; });
    }
    function typedSeat(check) { var v = parseInt(typed(check).value, 10); return isNaN(v) ? 99 : v; }

    // Who sits where when the page opens: as the server showed it (after a refusal, or typed).
    var order = checks.filter(function (c) { return c.checked; }).sort(function (a, b) {
      return typedSeat(a) - typedSeat(b);
    });

    function say(text) { if (said) said.textContent = text; }

    function button(label, text, move, check) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "seat-move";
      b.setAttribute("aria-label", label);
      b.textContent = text;
      b.addEventListener("click", function () {
        var at = order.indexOf(check);
        var to = at + move;
        if (to < 0 || to >= order.length) return;
        order.splice(at, 1);
        order.splice(to, 0, check);
        render();
        say(words("said", { name: name(check), seat: to + 1 }));
        var again = list.querySelector('[data-member="' + id(check) + '"] .seat-move[data-move="' + move + '"]');
        if (again && !again.disabled) again.focus();
        else { var other = list.querySelector('[data-member="' + id(check) + '"] .seat-move:not(:disabled)'); if (other) other.focus(); }
      });
      b.dataset.move = String(move);
      return b;
    }

    function render() {
      checks.forEach(function (c) {
        var seat = order.indexOf(c) + 1;
        c.checked = seat > 0;
        typed(c).value = seat > 0 ? String(seat) : "";
        badge(c).textContent = seat > 0 ? String(seat) : "";
      });
      list.textContent = "";
      order.forEach(function (c, i) {
        var item = document.createElement("li");
        item.className = "seat-item";
        item.dataset.member = id(c);
        var grip = document.createElement("span");
        grip.className = "seat-grip";
        grip.setAttribute("aria-hidden", "true");
        grip.textContent = "⠿";
        var no = document.createElement("span");
        no.className = "seat-no";
        no.setAttribute("aria-hidden", "true");
        no.textContent = String(i + 1);
        var who = document.createElement("span");
        who.className = "seat-name";
        who.textContent = name(c);
        var earlier = button(words("earlier", { name: name(c) }), "↑", -1, c);
        var later = button(words("later", { name: name(c) }), "↓", 1, c);
        earlier.disabled = i === 0;
        later.disabled = i === order.length - 1;
        item.append(grip, no, who, earlier, later);
        list.appendChild(item);
      });
      list.hidden = order.length === 0;
      if (empty) empty.hidden = order.length > 0;
    }

    checks.forEach(function (check) {
      check.addEventListener("change", function () {
        order = order.filter(function (c) { return c !== check; });
        if (check.checked) order.push(check);
        render();
        say(check.checked ? words("said", { name: name(check), seat: order.length })
                          : words("unseated", { name: name(check) }));
      });
    });

    // Dragging (mouse, pen or finger): the item follows the pointer and the others make room.
    var drag = null;
    list.addEventListener("pointerdown", function (event) {
      var item = event.target.closest(".seat-item");
      if (!item || event.target.closest("button") || (event.button !== undefined && event.button !== 0)) return;
      event.preventDefault();
      item.setPointerCapture(event.pointerId);
      var box = item.getBoundingClientRect();
      drag = { item: item, grab: event.clientY - box.top, pointer: event.pointerId };
      item.classList.add("is-dragging");
    });
    list.addEventListener("pointermove", function (event) {
      if (!drag || event.pointerId !== drag.pointer) return;
      var item = drag.item;
      item.style.transform = "";
      var y = event.clientY;
      var others = Array.prototype.filter.call(list.children, function (li) { return li !== item; });
      var before = others.find(function (li) {
        var box = li.getBoundingClientRect();
        return y < box.top + box.height / 2;
      });
      if (before) { if (item.nextSibling !== before) list.insertBefore(item, before); }
      else if (list.lastChild !== item) list.appendChild(item);
      var top = item.getBoundingClientRect().top;
      item.style.transform = "translateY(" + (y - drag.grab - top) + "px)";
    });
    function drop(event) {
      if (!drag || event.pointerId !== drag.pointer) return;
      var item = drag.item;
      drag = null;
      item.classList.remove("is-dragging");
      item.style.transform = "";
      order = Array.prototype.map.call(list.children, function (li) { return byId(li.dataset.member); });
      render();
      var moved = byId(item.dataset.member);
      say(words("said", { name: name(moved), seat: order.indexOf(moved) + 1 }));
    }
    list.addEventListener("pointerup", drop);
    list.addEventListener("pointercancel", drop);

    render();
  });
})();
