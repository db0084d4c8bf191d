"""The card-reading refusals of ``referee/rules/cards.py``, marked for translation here.

The rules engine is pure Python and raises these templates as they are; the service
translates every refusal's template at render time (``IllegalEntry.render``), so listing
them here is all ``makemessages`` needs to put them in the catalogue. Keep in step with
cards.py (tests/pages/test_translations.py checks that every template is translated).
"""

from django.utils.translation import gettext_noop

CARD_MESSAGES = (
    gettext_noop("'{text}' is not a rank; ranks are 2-10, {letters}."),
    gettext_noop(
        "'{text}' is an English rank letter, but this session writes cards in Lithuanian notation: "
        "use V (valetas), D (dama), K (karalius), T (tūzas)."
    ),
    gettext_noop(
        "'{text}' is a Lithuanian rank letter, but this session writes cards in English notation: "
        "use J, Q, K, A (or switch the session to Lithuanian notation)."
    ),
    gettext_noop("'{text}' is a suit in English notation, not a rank (a queen is Q)."),
    gettext_noop("A card must be written as text, not {value}."),
    gettext_noop("A card is missing (empty text)."),
    gettext_noop("'{text}' has a suit but no rank."),
    gettext_noop("'{text}' names two suits."),
    gettext_noop("'{text}' has no suit; {hint}."),
    gettext_noop("'{text}' is not a suit; suits are vynai, kryžiai, būgnai, širdys or ♠ ♣ ♦ ♥."),
    gettext_noop("'{text}' is not one card."),
    gettext_noop(
        "'{text}': in Lithuanian notation suits are written as symbols or words "
        "(♠ vynai, ♣ kryžiai, ♦ būgnai, ♥ širdys), never as single letters."
    ),
    gettext_noop(
        "'{text}' is ambiguous: in Lithuanian notation D is the queen (dama), not diamonds; "
        "write diamonds as ♦ or būgnai."
    ),
    gettext_noop(
        "'D' is ambiguous here: in English notation D means diamonds and a queen is Q "
        "(D is the queen, dama, only in Lithuanian notation)."
    ),
    gettext_noop("'{text}' is a suit, not a card."),
    gettext_noop("There are no jokers in this deal."),
)
