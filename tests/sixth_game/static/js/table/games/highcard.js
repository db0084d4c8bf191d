/* High card's drawer on the tablet: the whole of a new game's room there (the shared modules
   find it by the screen's data-game and never name it). Served only while the sixth game's
   browser test runs (its static folder joins STATICFILES_DIRS), at the address every drawer
   has: /static/js/table/games/<slug>.js. It answers the screen's question (room.js) and has no
   offline drawing, so its deals are recorded online only, as a game without a drawer's are.

   Its one rule on the screen: a card typed in lower case is read in upper case ("k" is K), and
   the form says how many of its cards are filled in (data-cards-in), which the test reads. */

export default {
  syncForm(form) {
    const inputs = Array.from(form.querySelectorAll("[data-card-input]"));
    inputs.forEach((input) => { input.value = input.value.toUpperCase(); });
    form.dataset.cardsIn = String(inputs.filter((input) => input.value.trim() !== "").length);
  },
};
