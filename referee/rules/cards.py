"""Cards: the values, the two notations the club writes them in, and the decks.

Canonical text (always the output, and always inside options) is rank + suit letter:
``10H``, ``QS``, ``AD``; a joker is ``X``; a bare rank is just the rank (``Q``, ``10``).

Input accepts, besides the canonical text:

* suit symbols on either side (``♠Q``, ``Q♠``);
* in English notation (``en``): ranks 2-10, ``T`` (ten), J Q K A; suits S C D H as the
  last letter, or the symbols;
* in Lithuanian notation (``lt``): ranks 2-10, V (valetas, jack), D (dama, queen),
  K (karalius, king), T (tūzas, ace); suits only as symbols or words (vynai, kryžiai,
  būgnai, širdys; with or without diacritics, any case, or their first three letters),
  never as single letters, because V, K and D are ranks there.

``D`` is the reason for the notation setting: a queen in ``lt`` and diamonds in ``en``.
Input that cannot be read in the session's notation is refused with a message saying
why (and, where the other notation would read it, how to write it here).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass

from .errors import InvalidSetup, gettext_noop, message_repr
from .errors import Notation as Notation  # cards are read and written in it; the games import it from here

NOTATIONS: tuple[Notation, ...] = ("en", "lt")

SUITS = ("S", "C", "D", "H")
SUIT_SYMBOLS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}
SYMBOL_SUITS = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}
SUIT_NAMES_EN = {"S": "spades", "C": "clubs", "D": "diamonds", "H": "hearts"}
SUIT_NAMES_LT = {"S": "vynai", "C": "kryžiai", "D": "būgnai", "H": "širdys"}

JACK, QUEEN, KING, ACE = 11, 12, 13, 14
RANK_VALUES = tuple(range(2, 15))
RANK_TEXT_EN = {**{v: str(v) for v in range(2, 11)}, JACK: "J", QUEEN: "Q", KING: "K", ACE: "A"}
RANK_TEXT_LT = {**{v: str(v) for v in range(2, 11)}, JACK: "V", QUEEN: "D", KING: "K", ACE: "T"}
_RANK_INPUT = {
    "en": {**{str(v): v for v in range(2, 11)}, "T": 10, "J": JACK, "Q": QUEEN, "K": KING, "A": ACE},
    "lt": {**{str(v): v for v in range(2, 11)}, "V": JACK, "D": QUEEN, "K": KING, "T": ACE},
}
RANK_NAMES_EN = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    10: "ten", JACK: "jack", QUEEN: "queen", KING: "king", ACE: "ace",
}


class CardError(ValueError):
    """Text that is not a card in the given notation. ``template``/``params`` as IllegalEntry."""

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(template.format(**params))


@dataclass(frozen=True)
class Card:
    """A card: ``rank`` 2..14 (ace high) or 0 for a joker; ``suit`` a letter or None (bare rank)."""

    rank: int
    suit: str | None = None

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def text(self) -> str:
        return format_card(self)

    def notated(self, notation: Notation) -> str:
        """The card in a message, in the session's notation (``errors.Notated``)."""
        return format_card(self, notation)

    def sort_key(self) -> tuple[int, int]:
        return (self.rank, SUITS.index(self.suit) if self.suit else -1)

    def __lt__(self, other: Card) -> bool:
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        return format_card(self)


JOKER = Card(0, None)


def parse_notation(value: object) -> Notation:
    for notation in NOTATIONS:
        if value == notation:
            return notation
    raise InvalidSetup(
        gettext_noop("Option notation must be \"en\" or \"lt\", not {value}."), value=message_repr(value)
    )


def _fold(text: str) -> str:
    """Lower case without diacritics, so ``Širdys``, ``sirdys`` and ``ŠIR`` compare equal."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


_LT_SUIT_WORDS = {_fold(name): suit for suit, name in SUIT_NAMES_LT.items()}
_LT_SUIT_WORDS.update({word[:3]: suit for word, suit in list(_LT_SUIT_WORDS.items())})


def _split_symbol(text: str) -> tuple[str, str | None]:
    """Take a suit symbol off either end."""
    if text and text[0] in SYMBOL_SUITS:
        return text[1:].strip(), SYMBOL_SUITS[text[0]]
    if text and text[-1] in SYMBOL_SUITS:
        return text[:-1].strip(), SYMBOL_SUITS[text[-1]]
    return text, None


def _rank(text: str, notation: Notation) -> int:
    upper = text.upper()
    value = _RANK_INPUT[notation].get(upper)
    if value is not None:
        return value
    other: Notation = "lt" if notation == "en" else "en"
    if upper in _RANK_INPUT[other]:
        if notation == "en":
            raise CardError(
                "'{text}' is a Lithuanian rank letter, but this session writes cards in English "
                "notation: use J, Q, K, A (or switch the session to Lithuanian notation).",
                text=text,
            )
        raise CardError(
            "'{text}' is an English rank letter, but this session writes cards in Lithuanian "
            "notation: use V (valetas), D (dama), K (karalius), T (tūzas).",
            text=text,
        )
    if notation == "en" and upper in ("S", "C", "D", "H"):
        raise CardError(
            "'{text}' is a suit in English notation, not a rank (a queen is Q).", text=text
        )
    raise CardError("'{text}' is not a rank; ranks are 2-10, {letters}.", text=text,
                    letters="J Q K A (T = ten)" if notation == "en" else "V D K T (T = tūzas)")


def parse_rank(text: object, notation: Notation = "en") -> int:
    """A bare rank (suits do not matter): ``"Q"``, ``"10"``, ``"D"`` in lt; a card's suit is ignored."""
    return parse_card(text, notation, bare_rank=True).rank


def parse_card(
    text: object,
    notation: Notation = "en",
    *,
    bare_rank: bool = False,
    jokers: bool = False,
) -> Card:
    """Read one card in the session's notation.

    ``bare_rank``: a rank without a suit is accepted (its suit is dropped either way, since
    the game ignores suits). ``jokers``: ``X`` (or "joker"/"džokeris") is accepted.
    """
    if not isinstance(text, str):
        raise CardError("A card must be written as text, not {value}.", value=message_repr(text))
    raw = " ".join(text.strip().split())
    if not raw:
        raise CardError("A card is missing (empty text).")
    if _fold(raw) in ("x", "joker", "dzokeris"):
        if not jokers:
            raise CardError("There are no jokers in this deal.")
        return JOKER
    body, suit = _split_symbol(raw)
    if suit is None:
        if notation == "lt":
            body, suit = _split_lt_word(body)
        else:
            body, suit = _split_en_letter(body, bare_rank)
    if not body:
        raise CardError("'{text}' has a suit but no rank.", text=raw)
    if body[0] in SYMBOL_SUITS or body[-1] in SYMBOL_SUITS:
        raise CardError("'{text}' names two suits.", text=raw)
    rank = _rank(body, notation)
    if suit is None and not bare_rank:
        if notation == "lt":
            hint = "write the suit as a symbol or a word, e.g. D♠ or D vynai"
        else:
            hint = "write the suit as a letter or a symbol, e.g. QS or Q♠"
        raise CardError("'{text}' has no suit; {hint}.", text=raw, hint=hint)
    return Card(rank, None if bare_rank else suit)


def _split_lt_word(body: str) -> tuple[str, str | None]:
    parts = body.split(" ")
    if len(parts) == 2:
        first, second = parts
        for rank_part, word in ((first, second), (second, first)):
            suit = _LT_SUIT_WORDS.get(_fold(word))
            if suit is not None:
                return rank_part, suit
        raise CardError("'{text}' is not a suit; suits are vynai, kryžiai, būgnai, širdys or ♠ ♣ ♦ ♥.", text=second)
    if len(parts) > 2:
        raise CardError("'{text}' is not one card.", text=body)
    # Glued forms such as "10širdys" or "Dvyn": a rank then a word.
    for cut in range(1, min(3, len(body))):
        suit = _LT_SUIT_WORDS.get(_fold(body[cut:]))
        if suit is not None:
            return body[:cut], suit
    if len(body) >= 2 and body[-1].upper() in ("S", "C", "H"):
        raise CardError(
            "'{text}': in Lithuanian notation suits are written as symbols or words "
            "(♠ vynai, ♣ kryžiai, ♦ būgnai, ♥ širdys), never as single letters.",
            text=body,
        )
    if len(body) >= 2 and body[-1].upper() == "D" and body[:-1].upper() in _RANK_INPUT["lt"]:
        raise CardError(
            "'{text}' is ambiguous: in Lithuanian notation D is the queen (dama), not diamonds; "
            "write diamonds as ♦ or būgnai.",
            text=body,
        )
    return body, None


def _split_en_letter(body: str, bare_rank: bool) -> tuple[str, str | None]:
    if len(body) >= 2 and body[-1].upper() in SUITS:
        return body[:-1], body[-1].upper()
    if len(body) >= 2 and " " in body:
        raise CardError("'{text}' is not one card.", text=body)
    if body.upper() == "D":
        raise CardError(
            "'D' is ambiguous here: in English notation D means diamonds and a queen is Q "
            "(D is the queen, dama, only in Lithuanian notation)."
        )
    if body.upper() in ("S", "C", "H"):
        raise CardError("'{text}' is a suit, not a card.", text=body)
    return body, None


def format_card(card: Card, notation: Notation = "en") -> str:
    """Canonical text in ``en``; in ``lt`` the rank letter and the suit symbol (``D♠``)."""
    if card.is_joker:
        return "X"
    if notation == "lt":
        rank = RANK_TEXT_LT[card.rank]
        return rank + (SUIT_SYMBOLS[card.suit] if card.suit else "")
    return RANK_TEXT_EN[card.rank] + (card.suit or "")


def format_rank(rank: int, notation: Notation = "en") -> str:
    return "X" if rank == 0 else (RANK_TEXT_LT if notation == "lt" else RANK_TEXT_EN)[rank]


def card_from_text(text: str) -> Card:
    """Read canonical text (snapshots, options): strict English notation, jokers allowed."""
    return parse_card(text, "en", bare_rank=len(text) <= 2 and text[-1:] not in SUITS, jokers=True)


def suit_cards(suit: str) -> tuple[Card, ...]:
    """The 13 cards of one suit, 2 to ace."""
    return tuple(Card(rank, suit) for rank in RANK_VALUES)


def standard_deck() -> tuple[Card, ...]:
    return tuple(card for suit in SUITS for card in suit_cards(suit))


def deck(copies: int = 1, jokers: int = 0) -> Counter[Card]:
    """A single (copies=1) or double (copies=2) deck, with jokers, as a multiset."""
    counts: Counter[Card] = Counter({card: copies for card in standard_deck()})
    if jokers:
        counts[JOKER] = jokers
    return counts
