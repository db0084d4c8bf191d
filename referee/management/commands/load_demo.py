"""Load a demo club with members and played sessions (used by ``make run``).

Safe to run again: an existing demo club is left as it is. Everything is recorded through
the same services the tablets use, so the demo's standings, ledgers and summaries are real.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any, cast

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from referee import services
from referee.models import Club, Deal, Role, Session
from referee.rules import GAMES
from referee.rules.rukas import RukasView

DEMO_PASSWORD = "kortos-demo"
PLAYERS = ["Ona", "Jonas", "Rūta", "Petras", "Asta", "Tomas"]


class Command(BaseCommand):
    help = "Create the demo club (members, a scorer, played sessions) unless it exists."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--port", default="8000")

    def handle(self, *args: Any, **options: Any) -> None:
        if not Club.objects.filter(slug="demo").exists():
            with transaction.atomic():
                self._create()
        url = f"http://127.0.0.1:{options['port']}/"
        self.stdout.write(self.style.SUCCESS(
            f"\nDemo club ready. Open {url}\n"
            f"  Sign in as the club admin:  user 'ona'   password '{DEMO_PASSWORD}'\n"
            f"  or as a scorer:             user 'jonas' password '{DEMO_PASSWORD}'\n"
            f"  Django admin: {url}admin/   API docs: {url}api/docs/\n"
        ))

    def _create(self) -> None:
        User = get_user_model()
        ona = User.objects.create_superuser("ona", "ona@example.org", DEMO_PASSWORD, first_name="Ona")
        jonas = User.objects.create_user("jonas", "jonas@example.org", DEMO_PASSWORD, first_name="Jonas")
        club = services.club_create(slug="demo", name="Demo kortų klubas", user=ona, public_leaderboard=True)
        members = {m.name: m for m in club.members.all()}
        for name in PLAYERS[1:]:
            linked = jonas if name == "Jonas" else None
            role = Role.SCORER if name == "Jonas" else Role.MEMBER
            members[name] = services.member_add(club=club, name=name, user=ona, role=role, linked_user=linked)
        rng = random.Random(2026)
        seat = [members[name] for name in PLAYERS]

        velnias = services.session_start(club=club, game="velnias", players=seat[:4], user=jonas,
                                         stake=Decimal("0.10"))
        for _ in range(6):
            self._play(velnias, jonas, lambda view: [self._velnias_end(rng, view)])
        services.session_close(session=velnias, user=jonas)

        michigan = services.session_start(club=club, game="michigan", players=seat[:5], user=jonas,
                                          stake=Decimal("0.05"))
        for _ in range(4):
            self._play(michigan, jonas, lambda view: self._michigan_entries(rng, view))
        services.session_close(session=michigan, user=jonas)

        rukas = services.session_start(club=club, game="rukas", players=[seat[i] for i in (0, 2, 3, 5)],
                                       user=ona, options={"notation": "lt"}, stake=Decimal("0.20"))
        for _ in range(2):
            self._play_rukas(rukas, ona, rng, tricks=13)
        self._play_rukas(rukas, ona, rng, tricks=5)

        open_velnias = services.session_start(club=club, game="velnias", players=[seat[i] for i in (1, 2, 4, 5)],
                                              user=jonas, stake=Decimal("0.05"))
        self._play(open_velnias, jonas, lambda view: [self._velnias_end(rng, view)])
        services.deal_start(session=open_velnias, user=jonas)

    def _play(self, session: Session, user: Any, entries_for: Any) -> Deal:
        deal = services.deal_start(session=session, user=user)
        view = GAMES[session.game].view(GAMES[session.game].from_dict(deal.state))
        for payload in entries_for(view):
            services.entry_add(deal_id=deal.pk, payload=payload, user=user)
        return deal

    @staticmethod
    def _velnias_end(rng: random.Random, view: dict[str, Any]) -> dict[str, Any]:
        players, hand = view["players"], view["hand_size"]
        counts = [rng.randint(1, hand) for _ in range(players)]
        condition = rng.choice(["empty_hand", "empty_hand", "last_card", "blocked"])
        caller = rng.randrange(players)
        if condition == "empty_hand":
            counts[caller] = 0
        return {"type": "end", "condition": condition, "player": None if condition == "blocked" else caller,
                "hand_counts": counts}

    @staticmethod
    def _michigan_entries(rng: random.Random, view: dict[str, Any]) -> list[dict[str, Any]]:
        players = view["players"]
        entries: list[dict[str, Any]] = []
        for card in rng.sample(["AS", "KC", "QD", "JH"], rng.randint(1, 3)):
            entries.append({"type": "prize", "card": card, "player": rng.randrange(players)})
        if rng.random() < 0.3:
            entries.append({"type": "misplay", "player": rng.randrange(players)})
        out = rng.randrange(players)
        sizes = view["hand_sizes"]
        # A prize card played has left its player's hand (a bound the referee keeps).
        played = [sum(1 for e in entries if e["type"] == "prize" and e["player"] == seat) for seat in range(players)]
        counts = [0 if seat == out else rng.randint(1, sizes[seat] - played[seat]) for seat in range(players)]
        entries.append({"type": "out", "player": out, "hand_counts": counts})
        return entries

    def _play_rukas(self, session: Session, user: Any, rng: random.Random, tricks: int) -> None:
        """Each player plays their 13 ranks in a random order; the reveal starts at the leader."""
        ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "V", "D", "K", "T"]
        deal = services.deal_start(session=session, user=user)
        game = GAMES["rukas"]
        players = session.seats.count()
        hands = [rng.sample(ranks, len(ranks)) for _ in range(players)]
        for trick in range(tricks):
            view = cast("RukasView", game.view(game.from_dict(Deal.objects.get(pk=deal.pk).state)))
            leader = view["leader"]
            cards = [hands[(leader + i) % players][trick] for i in range(players)]
            services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": cards}, user=user)


