"""A closed session's summary: standings, settlement, the deal table, a chart and highlights.

The build runs in three steps so that the Celery task can report progress and skip work:

1. :func:`gather` reads the session once (a handful of queries, none per deal) and keeps only
   the facts the summary needs, as plain JSON-safe data. Its :func:`fingerprint` says
   whether anything the summary depends on changed since the last build.
2. :func:`build_data` turns those facts into the summary dict (pure, no database).
3. :func:`render_html`, :func:`render_csv` and :func:`render_chart_svg` render that dict
   (pure; the same dict always gives byte-identical output, so a re-run stores the same
   result).

Highlights follow RULES.md: each game's own (read through its ``referee.games`` pages: the
longest Elgeta tie-break, the biggest Mičiganas prize pot, the sharpest Cheat challenger, the
lowest Rūkas taker, the Velnias player who called "Stop!" most often), then the biggest
single-deal result and the longest run of deals won where the game says they mean something.
A shared highlight names everyone tied for it (in deal, then seat order), so it never depends
on query order.

Stored summaries are language-neutral: the data holds figures, names and kinds, never a
sentence, and the chart carries no words; every text (highlights, the money rule, each
transfer's story, headings) is written when a reader asks, in that reader's language
(:func:`for_reader`, :func:`render_html`). The stored HTML and CSV are the site language's.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models.functions import JSONArray
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from referee.games import PAGES, FactQuery
from referee.models import DealStatus, Entry, Session
from referee.numbers import MINUS, points_text
from scoring import selectors
from scoring.csv_writer import SpreadsheetWriter
from scoring.figures import SeatRow
from scoring.models import DealResult
from scoring.settlement.story import explain_transfer
from scoring.summaries import chart as summary_chart

#: Bump when the summary's shape or rendering changes, so stored summaries count as stale.
SUMMARY_VERSION = 3

Progress = Callable[[int], None]


# -- 1. gathering (the only step that reads the database) -----------------------------------


def gather(session: Session) -> dict[str, Any]:
    """The facts a summary is built from, JSON-safe, in a fixed number of queries.

    Only the entry fields a highlight needs are read (JSON keys extracted by the database),
    never whole entries: a session can hold thousands of them.
    """
    session = Session.objects.select_related("club").get(pk=session.pk)
    seats = list(session.seats.select_related("member").order_by("number"))
    players = [{"seat": seat.number, "name": seat.member.name, "member": seat.member_id} for seat in seats]
    game = session.game
    finished = list(
        session.deals.filter(status=DealStatus.FINISHED).order_by("number").values_list("id", "number", "dealer")
    )
    results: dict[int, list[tuple[int, int, int, bool]]] = {}
    for deal_id, seat, points, placement, won in (
        DealResult.objects.filter(session=session).order_by("deal_id", "seat")
        .values_list("deal_id", "seat", "points", "placement", "won")
    ):
        results.setdefault(deal_id, []).append((seat, points, placement, won))
    deals = []
    for deal_id, number, dealer in finished:
        rows = results.get(deal_id, [])
        deals.append({
            "number": number,
            "dealer": dealer,
            "points": [points for _seat, points, _place, _won in rows],
            "placements": [place for _seat, _points, place, _won in rows],
            "winners": [seat for seat, _points, _place, won in rows if won],
        })
    query = PAGES[game].fact_query
    facts = _game_facts(session, query) if query is not None else {}
    local_created = timezone.localtime(session.created_at)
    return {
        "version": SUMMARY_VERSION,
        "session": {
            "id": session.pk,
            "club": session.club.name,
            "club_slug": session.club.slug,
            "game": game,
            "status": session.status,
            "date": local_created.date().isoformat(),
            "created_at": local_created.isoformat(),
            "closed_at": timezone.localtime(session.closed_at).isoformat() if session.closed_at else None,
            "stake": str(session.stake),
            "currency": session.currency,
            "coin": None if session.coin is None else str(session.coin),
            "options": session.options,
        },
        "players": players,
        "deals": deals,
        "facts": facts,
        "scoring": _scoring_figures(session, [SeatRow(s.number, s.member_id, s.member.name) for s in seats]),
    }


def _scoring_figures(session: Session, seats: list[SeatRow]) -> dict[str, Any]:
    """The standings and settlement exactly as the session pages show them (scoring.selectors
    owns the money rules, M3, coin rounding and the fewest transfers), from the seats read once."""
    return {"standings": selectors.standings(session, seats), "settlement": selectors.settlement(session, seats)}


def fingerprint(facts: Mapping[str, Any]) -> str:
    """A hash of everything the summary depends on: equal fingerprints, identical summaries."""
    canonical = json.dumps(facts, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _game_facts(session: Session, query: FactQuery) -> dict[str, Any]:
    """The facts of the game's own highlights, in one query (see ``FactQuery``).

    On PostgreSQL the database builds the rows as one JSON document (each row an array, jsonb
    keeping each value's type), decoded at once: read as rows, each field of each row was
    decoded apart (three per row), which cost most of a 200-deal Cheat or Rūkas session's
    gather. SQLite's JSON_ARRAY would turn an extracted false into 0, so there the
    fields are read one by one as before. Either way ``extract`` gets the same rows, in the same
    order: (deal number, [seq,] *fields)."""
    keys: tuple[str, ...]
    rows: Any
    if query.source == "deals":
        rows = session.deals.filter(status=DealStatus.FINISHED, **query.only).order_by("number")
        keys = ("number",)
    else:
        rows = (
            Entry.objects.filter(deal__session=session, deal__status=DealStatus.FINISHED, active=True, **query.only)
            .order_by("deal__number", "seq")
        )
        keys = ("deal__number", "seq")
    if connection.vendor != "postgresql":
        return query.extract(rows.values_list(*keys, *query.fields))
    as_arrays = rows.annotate(fact_row=JSONArray(*keys, *query.fields)).values_list("fact_row")
    inner, params = as_arrays.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(jsonb_agg(fact_row), '[]')::text FROM ({inner}) AS facts", params)  # noqa: S608
        packed = json.loads(cursor.fetchone()[0])
    # An aggregate over an ordered subquery keeps its order in practice, not by promise: sorted
    # again by the keys (a deal's number, an entry's seq: unique), cheap for a few thousand rows.
    packed.sort(key=lambda row: row[: len(keys)])
    return query.extract([tuple(row) for row in packed])


# -- 2. the summary dict (pure) ----------------------------------------------------------------


def build_data(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The summary as JSON-safe data: standings, settlement, deals, running totals, highlights."""
    session = facts["session"]
    names = [p["name"] for p in facts["players"]]
    n = len(names)
    standings = facts["scoring"]["standings"]
    settlement = facts["scoring"]["settlement"]
    raw = {deal["number"]: deal for deal in facts["deals"]}
    won = [0] * n
    place_sum = [0] * n
    table = []
    for row in standings["deals"]:
        winners = raw[row["deal"]]["winners"] if row["deal"] in raw else []
        for seat in winners:
            won[seat] += 1
        for seat, place in enumerate(row["placements"]):
            place_sum[seat] += place
        table.append({
            "number": row["deal"], "dealer": row["dealer"], "values": row["values"],
            "placements": row["placements"], "winners": winners, "money": row["money"], "running": row["running"],
        })
    running = [[0] * n, *(row["running"] for row in table)]
    m3 = standings.get("m3")
    if m3:
        running.append(m3["running"])
    rows = [
        {
            "seat": total["seat"],
            "name": total["name"],
            "total": total["total"],
            "pot_share": m3["values"][total["seat"]] if m3 else 0,
            "place": total["place"],
            "deals_won": won[total["seat"]],
            "average_place": _average(place_sum[total["seat"]], len(table)),
            "money": total["money"],
        }
        for total in standings["totals"]
    ]
    return {
        "version": SUMMARY_VERSION,
        "session": session,
        "players": names,
        "unit": standings["unit"],
        "unit_label": standings["unit_label"],
        "deal_count": len(table),
        "standings": sorted(rows, key=lambda row: (row["place"], row["seat"])),
        "m3": m3,
        "settlement": {
            "transfers": [{key: t[key] for key in ("from", "to", "amount")} for t in settlement["transfers"]],
            "coin": settlement["coin"],
            "rounding": [
                {"seat": net["seat"], "exact": net["exact"], "rounded": net["rounded"], "rounding": net["rounding"]}
                for net in settlement["nets"]
            ],
            # What each transfer's story is told from (settlement_story), in any language.
            "nets": [
                {key: net[key] for key in ("seat", "name", "exact", "rounded", "rounding", "deals", "close", "chips")}
                for net in settlement["nets"]
            ],
        },
        "deals": table,
        "running_totals": running,
        "highlights": highlights(facts),
    }


def _average(total: int, count: int) -> str | None:
    return None if count == 0 else str((Decimal(total) / count).quantize(Decimal("0.01")))


def highlights(facts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The evening's notable moments, each a dict with a ``kind`` and its figures."""
    pages = PAGES[facts["session"]["game"]]
    players = len(facts["players"])
    found = pages.highlights(facts.get("facts") or {}, players)
    if pages.best_deal_highlight:
        found.append(_best_deal(facts["deals"]))
    if pages.streak_highlight:
        found.append(_longest_streak(facts["deals"], players))
    return [h for h in found if h is not None]


def _best_deal(deals: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The best single-deal result, with every (seat, deal) that reached it."""
    best = max((points for deal in deals for points in deal["points"]), default=0)
    if best <= 0:
        return None
    holders = [{"seat": seat, "deal": deal["number"]} for deal in deals
               for seat, points in enumerate(deal["points"]) if points == best]
    return {"kind": "best_deal", "points": best, "deal": holders[0]["deal"], "seat": holders[0]["seat"],
            "tied": holders}


def _longest_streak(deals: Sequence[Mapping[str, Any]], players: int) -> dict[str, Any] | None:
    """The longest run of consecutive deals won (alone or shared) by one player; at least 2."""
    current = [0] * players
    runs: list[tuple[int, int, int]] = []  # (length, last deal, seat) of every run as it grows
    for deal in deals:
        for seat in range(players):
            current[seat] = current[seat] + 1 if seat in deal["winners"] else 0
            if current[seat] >= 2:
                runs.append((current[seat], deal["number"], seat))
    longest = max((run[0] for run in runs), default=0)
    if longest < 2:
        return None
    tied = [{"seat": seat, "from": last - longest + 1, "to": last}
            for length, last, seat in sorted(runs, key=lambda run: (run[1], run[2])) if length == longest]
    first = tied[0]
    return {"kind": "streak", "seat": first["seat"], "deals": longest, "from": first["from"], "to": first["to"],
            "tied": tied}


def describe(highlight: Mapping[str, Any], names: Sequence[str]) -> str:
    """A highlight as a sentence in the active language."""
    h = dict(highlight)
    seat = h.get("seat")
    h["name"] = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else None
    kind = h["kind"]
    tied = h.get("tied") or []
    if kind == "best_deal":
        if len(tied) > 1:
            return _("Best single deal: %(points)s, shared by %(who)s.") % {"points": h["points"], "who": "; ".join(
                _("%(name)s in deal %(deal)s") % {"name": names[t["seat"]], "deal": t["deal"]} for t in tied)}
        return _("Best single deal: %(name)s scored %(points)s in deal %(deal)s.") % h
    if kind == "streak":
        if len(tied) > 1:
            return _("Longest winning run: %(deals)s deals in a row, shared by %(who)s.") % {
                "deals": h["deals"], "who": "; ".join(
                    _("%(name)s (deals %(from)s to %(to)s)") % {"name": names[t["seat"]], **t} for t in tied)}
        return _("Longest winning run: %(name)s won %(deals)s deals in a row (deals %(from)s to %(to)s).") % h
    # A game's own kinds are its own (no two games share one): the game that knows it words it;
    # every seat's name goes with it for the game to name everyone tied.
    h["players"] = list(names)
    for pages in PAGES.values():
        text = pages.describe_highlight(h)
        if text is not None:
            return text
    return str(kind)


# -- 3. rendering (pure) -----------------------------------------------------------------------


def chart_url(session_id: int) -> str:
    return reverse("session-summary-chart", args=[session_id])


def render_html(data: Mapping[str, Any]) -> str:
    """The summary as an HTML fragment (no <html>/<body>): the pages include it as it is."""
    names = data["players"]
    session = data["session"]
    settlement = data["settlement"]
    context = {
        "data": data,
        "game_name": game_name(session["game"]),
        "unit": unit_label(session["game"]),
        "names": names,
        "highlights": [describe(h, names) for h in data["highlights"]],
        "money_rule": PAGES[session["game"]].money_rule_text() if session["game"] in PAGES else "",
        "transfers": [
            {"payer": names[t["from"]], "payee": names[t["to"]], "amount": t["amount"],
             "explanation": _explanation(data, t)}
            for t in settlement["transfers"]
        ],
        "rounding": [
            {"name": names[r["seat"]], "exact": r["exact"], "rounded": r["rounded"], "rounding": r["rounding"]}
            for r in settlement["rounding"] if Decimal(r["rounding"])
        ],
        "deals": data["deals"],
        "deal_rows": deal_rows(data["deals"], names, {
            "deal": gettext("Deal"), "dealer": gettext("Dealer"), "won_by": gettext("Won by")}),
        "show_money": Decimal(session["stake"]) > 0,
        "chart_url": chart_url(session["id"]),
    }
    return render_to_string("scoring/summary_fragment.html", context)


def deal_rows(deals: Sequence[Mapping[str, Any]], names: Sequence[str], labels: Mapping[str, str]) -> SafeString:
    """The deal-by-deal table's rows, as the template would write them: its 1,600 cells of two
    figures each (200 deals of eight) took most of the summary's HTML time. Each cell carries its
    column's name (``data-label``), which a phone shows beside it when the rows become cards."""
    rows = []
    seat_labels = [escape(name) for name in names]
    deal_label, dealer_label, won_label = (escape(labels[key]) for key in ("deal", "dealer", "won_by"))
    for deal in deals:
        cells = "".join(f'<td class="num" data-label="{label}">{_signed(value)} <small>({_signed(total)})</small></td>'
                        for label, value, total in zip(seat_labels, deal["values"], deal["running"]))
        winners = ", ".join(names[seat] for seat in deal["winners"])
        rows.append(f'<tr><td data-label="{deal_label}">{deal["number"]}</td>'
                    f'<td data-label="{dealer_label}">{escape(names[deal["dealer"]])}</td>{cells}'
                    f'<td data-label="{won_label}">{escape(winners) if winners else "–"}</td></tr>\n')
    return mark_safe("".join(rows))  # noqa: S308 - every name escaped above, figures are digits


def _signed(value: Any) -> str:
    """A deal's result as :func:`referee.numbers.points_text` writes it ("+2", "−3", "0"),
    without its Decimal round trip for the plain integers a deal's cells hold."""
    if type(value) is int:
        return f"+{value}" if value > 0 else f"{MINUS}{-value}" if value < 0 else "0"
    return points_text(value)


def _explanation(data: Mapping[str, Any], transfer: Mapping[str, Any]) -> str:
    settlement = data["settlement"]
    if "nets" not in settlement:  # stored before the stories were (SUMMARY_VERSION 1)
        return str(transfer.get("explanation", ""))
    return explain_transfer(transfer, nets=settlement["nets"], transfers=settlement["transfers"],
                            currency=data["session"]["currency"], coin=settlement["coin"])


def for_reader(data: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The stored (language-neutral) summary with its sentences written in the active language:
    each highlight's ``text``, the settlement's ``money_rule`` and each transfer's ``explanation``."""
    if data is None:
        return None
    out = json.loads(json.dumps(data))
    names = out["players"]
    for highlight in out["highlights"]:
        highlight["text"] = describe(highlight, names)
    settlement = out["settlement"]
    game = out["session"]["game"]
    settlement["money_rule"] = PAGES[game].money_rule_text() if game in PAGES else ""
    for transfer in settlement["transfers"]:
        transfer["explanation"] = _explanation(out, transfer)
    return dict(out)


def unit_label(game: str) -> str:
    """The session unit's name in the active language (the engine's unit, as every page says it)."""
    return PAGES[game].unit_label() if game in PAGES else ""


def game_name(game: str) -> str:
    return PAGES[game].name if game in PAGES else game


def _spreadsheet_safe(text: str) -> str:
    """A name that a spreadsheet would run as a formula gets a leading apostrophe."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def render_csv(data: Mapping[str, Any]) -> str:
    """One row per deal (each seat's result in the session unit), then the totals, places and money."""
    names = [_spreadsheet_safe(name) for name in data["players"]]
    out = io.StringIO()
    writer = SpreadsheetWriter(out, lineterminator="\r\n")
    writer.writerow([_("deal"), _("dealer"), *names, _("won by")])
    for deal in data["deals"]:
        writer.writerow([
            deal["number"], names[deal["dealer"]], *deal["values"],
            "; ".join(names[seat] for seat in deal["winners"]),
        ])
    by_seat = sorted(data["standings"], key=lambda row: row["seat"])
    if data["m3"]:
        writer.writerow([_("prize card chips shared at close (M3)"), "", *data["m3"]["values"], ""])
    writer.writerow([_("total (%(unit)s)") % {"unit": unit_label(data["session"]["game"])}, "",
                     *(row["total"] for row in by_seat), ""])
    writer.writerow([_("place"), "", *(row["place"] for row in by_seat), ""])
    writer.writerow([_("money (%(currency)s, decimal point)") % {"currency": data["session"]["currency"]}, "",
                     *(row["money"] for row in by_seat), ""])
    return out.getvalue()


def render_chart_svg(data: Mapping[str, Any]) -> str:
    """Running totals per player, deal by deal, as SVG; byte-identical for the same data
    (written out by ``scoring.summary_chart``, without matplotlib)."""
    return summary_chart.render(data)


# -- the whole build ---------------------------------------------------------------------------


def build(facts: Mapping[str, Any], progress: Progress | None = None) -> dict[str, Any]:
    """Everything the task stores, from gathered facts. ``progress`` gets the percent done."""
    report = progress or (lambda _percent: None)
    # The data and the chart hold no words; the stored HTML and CSV are the site language's,
    # and summary_html() renders the data again for a reader of another language.
    with translation.override(settings.LANGUAGE_CODE):
        data = build_data(facts)
        report(40)
        chart = render_chart_svg(data)
        report(70)
        html = render_html(data)
        csv_text = render_csv(data)
        report(90)
    return {"data": data, "html": html, "csv": csv_text, "chart_svg": chart}


def summary_html(session: Session, language: str | None = None) -> str:
    """The stored summary fragment for the pages, in ``language`` (default: the active one).

    Empty while no summary has been built. The stored HTML is in the site's language; any
    other language is rendered from the stored data (cheap, and identical in figures).
    """
    from scoring.models import SessionSummary

    summary = SessionSummary.objects.filter(session=session).only("data", "html").first()
    if summary is None or summary.data is None:
        return ""
    language = language or translation.get_language() or settings.LANGUAGE_CODE
    if language == settings.LANGUAGE_CODE and summary.html:
        return summary.html
    with translation.override(language):
        return render_html(summary.data)
