"""The session start form: game, players in seat order, how cards are written, the stake, the
smallest coin and the chosen game's house rules.

Field names are the page's own (``game``, ``play_<member>``/``seat_<member>``,
``opt_<game>_<rule>``) and each refusal is keyed by the field it is shown beside, ``form``
for what the referee refuses as a whole. The house rules come from the engine's
``house_rules`` and ``option_defaults``, so the form can never offer what the referee refuses.
Only the chosen game's house rules are read: another game's leftovers never block a start.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms.utils import ErrorDict
from django.utils.translation import gettext as _

from referee.games import START_FORM_GAME
from referee.models import GAME_CHOICES, Member
from referee.rules import GAMES, HouseRule
from referee.safe_input import read_int

#: What a fresh form shows.
DEFAULTS = {"game": START_FORM_GAME, "notation": "lt", "stake": "0", "coin": ""}
#: The ranks of Mičiganas' prize cards, each chosen by its suit.
PRIZE_RANKS = ("A", "K", "Q", "J")
#: A ticked checkbox as browsers and tests send it.
TICKED = ("1", "on")
#: Seats without a typed number go after the numbered ones, in list order.
UNNUMBERED = 10_000


class TypedText(forms.Field):
    """What was typed, stripped; the form's ``clean_<field>`` says what is wrong with it."""

    def __init__(self) -> None:
        super().__init__(required=False)

    def to_python(self, value: Any) -> str:
        return "" if value is None else str(value).strip()


class SeatOrderWidget(forms.Widget):
    """Reads each member's tick (``play_<id>``) and typed seat number (``seat_<id>``)."""

    def __init__(self, members: list[Member]) -> None:
        super().__init__()
        self.members = members

    def value_from_datadict(self, data: Any, files: Any, name: str) -> list[tuple[Member, bool, str]]:
        return [
            (member, data.get(f"play_{member.pk}") in TICKED, (data.get(f"seat_{member.pk}") or "").strip())
            for member in self.members
        ]


class SeatOrderField(forms.Field):
    """The ticked members in seat order: by the seat number given, then in list order.

    Only the club's active members can be ticked; anything else posted is ignored, and a seat
    "number" that is not plain digits (``"x"``, ``"²"``) counts as none given."""

    def __init__(self, members: list[Member]) -> None:
        super().__init__(required=False, widget=SeatOrderWidget(members))

    def to_python(self, value: Any) -> list[Member]:
        chosen = []
        for index, (member, ticked, seat_text) in enumerate(value or []):
            if ticked:
                seat = read_int(seat_text)
                chosen.append((UNNUMBERED + index if seat is None else seat, index, member))
        return [member for _seat, _index, member in sorted(chosen, key=lambda item: (item[0], item[1]))]


class PrizesWidget(forms.Widget):
    """Mičiganas' prize cards: one suit per rank, posted as ``<name-stem>prize_<rank>``."""

    def __init__(self, stem: str) -> None:
        super().__init__()
        self.stem = stem

    def value_from_datadict(self, data: Any, files: Any, name: str) -> list[str]:
        return [rank + data.get(f"{self.stem}prize_{rank}", "") for rank in PRIZE_RANKS]


class HouseRuleField(forms.Field):
    """One house rule of the chosen game, read as the engine's option value.

    ``None`` means "not set": the engine's default applies (an empty suits field)."""

    def __init__(self, rule: HouseRule, stem: str) -> None:
        widget = PrizesWidget(stem) if rule.kind == "prizes" else None
        super().__init__(required=False, widget=widget)
        self.rule = rule

    def to_python(self, value: Any) -> Any:
        kind = self.rule.kind
        if kind == "prizes":
            return value
        text = "" if value is None else str(value).strip()
        if kind == "bool":
            return text in ("1", "on", "true")
        if kind == "choice":
            if not text:
                return None  # not posted (a rule the game gained since the page was loaded): the default
            for choice in self.rule.choices:
                if str(choice) == text:
                    return choice
            raise ValidationError(_("Choose one of the options."))
        if kind == "chips":
            try:
                number = int(text)
            except ValueError:
                number = -1
            if number < 0:
                raise ValidationError(_("Give a whole number of chips, 0 or more."))
            return number
        # suits: seat by seat, e.g. "S C D H" or "HD, SC"; empty leaves the engine's default.
        return [part.upper() for part in text.replace(",", " ").split()] or None


class SessionStartForm(forms.Form):
    game = TypedText()
    notation = TypedText()
    stake = TypedText()
    coin = TypedText()

    def __init__(self, data: Mapping[str, Any] | None = None, *, members: list[Member], game: str | None = None):
        super().__init__(data)
        #: The ticked members in seat order, once the form is cleaned.
        self.players: list[Member] = []
        self.fields["players"] = SeatOrderField(members)
        self.initial = {**DEFAULTS, "game": DEFAULTS["game"] if game is None else game}
        chosen = self.shown()["game"]
        for rule in GAMES[chosen].house_rules if chosen in GAMES else ():
            self.fields[f"opt_{chosen}_{rule.key}"] = HouseRuleField(rule, stem=f"opt_{chosen}_")

    def shown(self) -> dict[str, str]:
        """What the game, notation, stake and coin fields show: as typed (stripped), or the defaults."""
        if not self.is_bound:
            return {key: str(self.initial[key]) for key in DEFAULTS}
        return {key: (self.data.get(key) or "").strip() for key in DEFAULTS}

    def clean_game(self) -> str:
        game: str = self.cleaned_data["game"]
        if game not in GAMES:
            raise ValidationError(_("Choose a game."))
        return game

    def clean_notation(self) -> str:
        notation: str = self.cleaned_data["notation"]
        if notation not in ("en", "lt"):
            raise ValidationError(_("Choose how cards are written."))
        return notation

    def clean_stake(self) -> Decimal:
        stake = _decimal(self.cleaned_data["stake"] or "0")
        if stake is None or stake < 0:
            raise ValidationError(_("Give an amount of 0 or more, e.g. 0.10."))
        return stake

    def clean_coin(self) -> Decimal | None:
        text = self.cleaned_data["coin"]
        if not text:
            return None
        coin = _decimal(text)
        if coin is None or coin <= 0:
            raise ValidationError(_("Give the smallest coin as an amount above 0, e.g. 0.05, or leave it empty."))
        return coin

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        # Kept apart: a refused count takes the field out of cleaned_data, yet the ticks stay shown.
        self.players = cleaned.get("players", [])
        game = cleaned.get("game")
        if game is not None:
            low, high = GAMES[game].min_players, GAMES[game].max_players
            count = len(self.players)
            if not low <= count <= high:
                self.add_error("players", _("%(game)s is played by %(low)s to %(high)s players; %(count)s chosen.") % {
                    "game": dict(GAME_CHOICES)[game], "low": low, "high": high, "count": count,
                })
        return cleaned

    # -- what the page and the service get ---------------------------------------------------------

    def options(self) -> dict[str, Any]:
        """The chosen game's house rules read so far (those refused are left out)."""
        cleaned = getattr(self, "cleaned_data", {})
        options = {}
        for name, field in self.fields.items():
            if isinstance(field, HouseRuleField) and cleaned.get(name) is not None:
                options[field.rule.key] = cleaned[name]
        return options

    def option_values(self) -> dict[str, dict[str, Any]]:
        """The house rules to show again, by game: the chosen game's as read, the others' defaults."""
        game = getattr(self, "cleaned_data", {}).get("game")
        return {game: self.options()} if game is not None else {}

    def seats(self) -> dict[int, int]:
        """Seat number (from 1) by member id, as the players field shows them again."""
        return {member.pk: seat for seat, member in enumerate(self.players, start=1)}

    def messages(self) -> dict[str, str]:
        """One message per field (``form`` for the whole form), as the page shows them."""
        errors: ErrorDict = self.errors if self.is_bound else ErrorDict()
        return {("form" if name == "__all__" else name): str(messages[0]) for name, messages in errors.items()}

    def session_arguments(self) -> dict[str, Any]:
        """What ``services.session_start`` needs from a valid form."""
        cleaned = self.cleaned_data
        return {
            "game": cleaned["game"], "players": cleaned["players"],
            "options": {**self.options(), "notation": cleaned["notation"]},
            "stake": cleaned["stake"] or Decimal("0"), "coin": cleaned["coin"],
        }


def _decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text.replace(",", "."))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None
