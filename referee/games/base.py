"""What one game means to the pages, the audit and the summaries: the presentation half of a game.

The engine (``referee.rules``) keeps a game's pure facts: rules, entry shapes, unit, money
rule, house-rule options and defaults. Everything a person reads about that game (the house
rules' labels, the recording screen, how an entry and the referee's conclusion read, the
summary's highlights) sits in one subclass of :class:`GamePages` per game, found by slug in
``referee.games.PAGES`` (modelled on python-chess's ``variant.py``: one class per variant
carrying its facts, found by a registry). The views, the audit and the summary ask it and
never branch on a game's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from referee import presenters
from referee.numbers import points_text
from referee.presenters import rank_pad
from referee.rules import GAMES, Game, MoneyRule
from referee.rules.seat_names import with_names

#: One row read for a summary's facts (a ``values_list`` tuple).
Row = Sequence[Any]

#: Entry fields that hold a seat: the audit shows the player's name.
SEAT_FIELDS = ("player", "challenger")


@dataclass(frozen=True)
class RuleText:
    """A house rule as the session start form shows it, in the reader's language."""

    label: str
    help: str
    #: Choice value -> its label (for a rule of kind ``choice``).
    choices: Mapping[Any, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FactQuery:
    """Which stored rows a game's summary highlights are built from, and how.

    ``source="entries"``: the active entries of the session's finished deals matching
    ``only``, in deal and entry order, read as rows (deal number, seq, *fields).
    ``source="deals"``: the finished deals in order, read as rows (deal number, *fields).
    ``fields`` are JSON keys the database extracts (a session can hold thousands of entries,
    so whole entries are never read); ``extract`` turns the rows into JSON-safe facts.
    """

    source: Literal["entries", "deals"]
    fields: tuple[str, ...]
    extract: Callable[[Iterable[Row]], dict[str, Any]]
    only: Mapping[str, Any] = field(default_factory=dict)


class GamePages:
    """The presentation of one game; subclasses override what their game shows."""

    slug: ClassVar[str]
    #: Form actions that only redraw the recording screen from what was typed (nothing is stored).
    redraw_actions: ClassVar[tuple[str, ...]] = ()
    #: What the summary reads for this game's own highlights (None: none of its own).
    fact_query: ClassVar[FactQuery | None] = None
    #: The summary's shared highlights that mean something for this game.
    best_deal_highlight: ClassVar[bool] = False
    streak_highlight: ClassVar[bool] = True
    #: Entry fields that take one of a few values (the correction screen offers them in words).
    field_choices: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: Entry fields that hold cards, and what the correction screen suggests for them:
    #: ``"rank"`` (a rank names the card) or ``"card"`` (rank and suit).
    card_fields: ClassVar[Mapping[str, Literal["rank", "card"]]] = {}

    @property
    def rules(self) -> Game[Any]:
        return GAMES[self.slug]

    @property
    def name(self) -> str:
        """The game's name as the club says it."""
        return self.rules.name_lt

    @property
    def template(self) -> str:
        """The recording screen's partial for this game."""
        return f"referee/games/{self.slug}.html"

    def unit_label(self) -> str:
        """What the session's totals count, in the reader's language."""
        return _(self.rules.unit.label)

    def offline_text(self) -> dict[str, object]:
        """The sentences the tablet's drawer for this game (static/js/table/games/<game>.js)
        says when it draws an entry the server has not seen yet: the server screen's own msgids,
        with their ``%(name)s`` left for the browser. A game without a drawer says nothing."""
        return {}

    def money_rule_text(self) -> str:
        """How the session's money is counted, in one sentence for the settlement."""
        if self.rules.money_rule is MoneyRule.PAIR_DIFFERENCE:
            return _("Every pair of players settles the difference of their points x the stake.")
        return _("Points x the stake: the points are already who pays whom.")

    # -- house rules -------------------------------------------------------------------------

    def rule_texts(self) -> Mapping[str, RuleText]:
        """Label and explanation of each of the engine's ``house_rules``, by option key."""
        return {}

    def rules_in_play(self, options: Mapping[str, Any], names: Sequence[str], notation: str) -> list[tuple[str, str]]:
        """(label, value) of each house rule a session plays by, in the reader's language: the
        engine's ``house_rules`` with this session's values (or the defaults), then the game's
        rules of the whole session (:meth:`session_rules`)."""
        texts = self.rule_texts()
        defaults = self.rules.option_defaults
        shown = []
        for rule in self.rules.house_rules:
            text = texts.get(rule.key)
            value = options.get(rule.key, defaults.get(rule.key))
            shown.append((text.label if text else rule.key, self.rule_value(rule.kind, value, text, names, notation)))
        return shown + self.session_rules()

    def rule_value(self, kind: str, value: Any, text: RuleText | None, names: Sequence[str], notation: str) -> str:
        """A house rule's value in words, by how the rule is chosen (its ``HouseRule.kind``)."""
        if kind == "bool":
            return _("on") if value else _("off")
        if kind == "choice":
            return str(text.choices.get(value, value)) if text else str(value)
        if kind == "chips" and isinstance(value, int):
            return presenters.chips_word(value)
        if kind == "prizes" and isinstance(value, list):
            return " ".join(presenters.show_card(card, notation) for card in value)
        if kind == "suits":
            if not isinstance(value, list) or not value:
                return _("by the number of players")
            symbols = ["".join(presenters.SUIT_SYMBOLS.get(s, s) for s in str(suits)) for suits in value]
            return ", ".join(f"{presenters.name_of(names, seat)} {text}" for seat, text in enumerate(symbols))
        return "–" if value is None else str(value)

    def movement_reason(self, reason: str) -> str:
        """Why points or chips moved in the session's ledger (its ``reason`` key), in words."""
        return {"deal": _("the deal's result"), "split": _("M3 share")}.get(reason, reason)

    def session_rules(self) -> list[tuple[str, str]]:
        """(label, value) of the game's rules for the whole session rather than one deal: who
        deals next, and anything settled at the close."""
        return [(_("Who deals"), _("the dealer moves one seat clockwise each deal"))]

    # -- the recording screen ------------------------------------------------------------------

    def rank_pad(self, options: Mapping[str, Any], notation: str) -> list[dict[str, str]]:
        """The rank buttons a deal with these options offers (the pad, the correction screen's
        suggestions): every rank, unless the game plays a shorter deck."""
        return rank_pad(notation)

    def screen(
        self, view: Mapping[str, Any], names: Sequence[str], notation: str, *,
        state: Mapping[str, Any], finished: bool, redraw: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The game's part of the recording screen's context (read by its partial).

        ``redraw`` is the typed form to show again, as typed: after a refusal, or as
        ``redraw_form`` made it when one of ``redraw_actions`` asked for the screen again.
        """
        return {}

    def kept_view(self, view: Mapping[str, Any]) -> dict[str, Any]:
        """The engine's view of a deal version as the screens keep it (``referee.screen_views``):
        what ``screen`` and the templates read. A game trims here what only other readers use."""
        return dict(view)

    def redraw_form(self, action: str, typed: Mapping[str, Any]) -> dict[str, Any]:
        """The form the scorer asked for with ``action`` (one of ``redraw_actions``), from what
        they typed; nothing is stored. A game adds here what the action asks for."""
        return dict(typed)

    def running_points(self, view: Mapping[str, Any]) -> list[int] | None:
        """Points the running deal has already given each seat, for games that keep a running
        count the session totals show as the deal goes (None: only finished deals count)."""
        return None

    def preview(self, view: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
        """Extra context for the "if you confirm" preview of an entry."""
        return {"payments": []}

    def refusal_hint(
        self, state: Mapping[str, Any], notation: str, params: Mapping[str, Any], payload: Mapping[str, Any]
    ) -> dict[str, Any]:
        """What a refused preview adds for the screen to help the scorer on (e.g. a round to fill in)."""
        return {}

    # -- words: the referee's conclusions, entries --------------------------------------------------

    def words(self) -> dict[str, str]:
        """The club's words for what the engine's refusals name by key (entry types, fields,
        choices), in the reader's language; a key without a word shows as itself."""
        return {
            "player": _("the player"), "card": _("the card"), "cards": _("the cards"),
            "hand_counts": _("the cards left in each hand"), "null": _("no card"),
        }

    def explain_last(self, view: Mapping[str, Any], names: Sequence[str], notation: str) -> list[str]:
        """Sentences saying what the referee concluded from the last entry (empty before any)."""
        last = view.get("last")
        if not last:
            return []
        return self.explain(view, last, names, notation)

    def explain(
        self, view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
    ) -> list[str]:
        return []

    def audit_conclusion(self, result: Any, names: Sequence[str], notation: str) -> str:
        """The referee's conclusion from one entry as the audit shows it, in the reader's language:
        the screen's own sentences (:meth:`explain`, from the stored conclusion alone), then each
        seat's points; the engine's English sentence only for a conclusion the game cannot word."""
        if not isinstance(result, dict):
            return ""
        try:
            sentences = self.explain({}, result, names, notation)
        except (KeyError, TypeError, IndexError, ValueError):  # needs the deal's view, which the audit has not
            sentences = []
        if not sentences:
            return str(with_names(result, names).get("text", ""))
        points = result.get("points")
        if isinstance(points, list) and len(points) == len(names):
            sentences.append(_("Points: %(list)s.") % {"list": ", ".join(
                f"{name} {points_text(value)}" for name, value in zip(names, points))})
        return " ".join(sentences)

    def describe_entry(
        self, payload: Mapping[str, Any], result: Mapping[str, Any] | None, names: Sequence[str], notation: str
    ) -> str:
        """One short line saying what an entry recorded, for the undo button and the entry list."""
        return str(payload.get("type"))

    def audit_line(self, payload: Any, names: Sequence[str]) -> str:
        """An entry as the audit shows it: its type, then its fields, seats as players' names."""
        if not isinstance(payload, dict):
            return str(payload)
        parts = [str(payload.get("type", "?"))]
        for key, value in payload.items():
            if key == "type":
                continue
            text = self.audit_value(key, value, names)
            parts.append(f"{key}: {_plain_audit_value(key, value, names) if text is None else text}")
        return " · ".join(parts)

    def audit_value(self, key: str, value: Any, names: Sequence[str]) -> str | None:
        """A field of this game's entries the audit writes its own way (None: the plain way)."""
        return None

    # -- the summary's highlights ------------------------------------------------------------------

    def highlights(self, facts: Mapping[str, Any], players: int) -> list[dict[str, Any] | None]:
        """This game's own highlights from the facts ``fact_query`` gathered (None: nothing notable)."""
        return []

    def describe_highlight(self, highlight: Mapping[str, Any]) -> str | None:
        """One of this game's highlights as a sentence (``highlight["name"]`` is the player's
        name, ``highlight["players"]`` every seat's name, for naming everyone in ``tied``); None
        for a kind it does not know."""
        return None


def top_count(kind: str, counts: Sequence[int]) -> dict[str, Any] | None:
    """The seat with the most of something (the lower seat among equals), if anyone has any;
    equals are all named in ``tied`` (seat order), which is there only when there are some."""
    if not any(counts):
        return None
    seat = min(range(len(counts)), key=lambda s: (-counts[s], s))
    return with_tied({"kind": kind, "seat": seat, "count": counts[seat]},
                     [{"seat": s} for s, count in enumerate(counts) if count == counts[seat]])


def with_tied(highlight: dict[str, Any], tied: list[dict[str, Any]]) -> dict[str, Any]:
    """The highlight with everyone tied for it, when more than one is: a highlight nobody shares
    stays as it always was, so stored summaries and API answers without a tie do not change."""
    if len(tied) > 1:
        highlight["tied"] = tied
    return highlight


def plural_forms(singular: str, plural: str) -> dict[str, str]:
    """One sentence per CLDR plural category, with ``%(n)s`` left for the browser to fill in (it
    picks the category with Intl.PluralRules): 1, 2 and 10 stand for one, few and other in
    both of the club's languages."""
    return {category: ngettext(singular, plural, n) for category, n in {"one": 1, "few": 2, "other": 10}.items()}


def and_list(items: Sequence[str]) -> str:
    """"Ona", "Ona and Jonas", "Ona, Jonas and Rūta" in the reader's language."""
    if len(items) < 2:
        return "".join(items)
    return _("%(rest)s and %(last)s") % {"rest": ", ".join(items[:-1]), "last": items[-1]}


def tied_names(highlight: Mapping[str, Any]) -> list[str]:
    """The names of everyone tied for a highlight (``players`` is every seat's name)."""
    players = highlight.get("players") or []
    return [players[t["seat"]] if isinstance(t.get("seat"), int) and 0 <= t["seat"] < len(players) else "?"
            for t in highlight.get("tied") or []]


def _plain_audit_value(key: str, value: Any, names: Sequence[str]) -> str:
    if key in SEAT_FIELDS and isinstance(value, int) and 0 <= value < len(names):
        return names[value]
    if isinstance(value, list):
        return " ".join(str(item) for item in value)
    return "–" if value is None else str(value)
