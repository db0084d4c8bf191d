"""The club's audit chain, verified on request: the club's admins see at a glance whether the
record holds (every entry, undo, correction, seat change, start, close and reopen as it was
recorded), and if not, the first record that does not match; the club's other members are
told that only its admins can (403), outsiders learn nothing (404). The head is shown to be noted
(a treasurer who notes it each month can later prove nothing before it was changed); an export
file, and a head noted earlier, can be checked here too."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from referee.chain_seal import verify_club
from referee.chain_verify import Verdict
from referee.errors import Refusal
from referee.models import Club, Role
from web.chain_file import verify_file
from web.pages.access import club_or_404

#: The largest export file the page reads (a club's years of history fit well within it).
MAX_FILE_BYTES = 50 * 1024 * 1024


def read_anchor(text: str) -> tuple[int, str] | None:
    """A head noted earlier, ``SEQ:HASH`` or ``SEQ HASH`` (the hash's first 12 characters or
    more); None when empty; a Refusal a person understands otherwise."""
    text = text.strip().lower().replace(" ", ":", 1)
    if not text:
        return None
    seq, _sep, digest = text.partition(":")
    digest = digest.strip()
    if not seq.isdigit() or len(digest) < 12 or any(c not in "0123456789abcdef" for c in digest):
        raise Refusal(_("Write the noted head as its record number and hash, e.g. 1234:9f2c4e01ab37 (the hash's "
                        "first 12 characters or more)."))
    return int(seq), digest


def _refused(request: HttpRequest, club: Club) -> HttpResponse:
    """The page for the club's members who are not admins: what it is, and who may use it."""
    return render(request, "referee/chain.html", {
        "club": club, "refused": True, "error": _("Only the club's admins can verify the audit chain.")},
        status=403)


def _context(club: Club, verdict: Verdict | None, **more: Any) -> dict[str, Any]:
    head = verdict.head_hash if verdict is not None else ""
    return {"club": club, "verdict": verdict,
            # Four-letter groups read aloud or copied by hand without losing one's place.
            "head_groups": [head[i:i + 4] for i in range(0, 16, 4)] if head else [], **more}


@login_required
def chain_page(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = club_or_404(request.user, slug)
    if role != Role.ADMIN:
        return _refused(request, club)
    if request.method != "POST":
        return render(request, "referee/chain.html", _context(club, verify_club(club.pk), source="club"))
    anchor_text = request.POST.get("anchor", "")
    upload = request.FILES.get("file")
    try:
        anchor = read_anchor(anchor_text)
        if upload is None:
            verdict, source = verify_club(club.pk, anchor=anchor), "club"
        else:
            verdict, source = _verify_upload(upload, club, anchor), "file"
    except Refusal as refusal:
        return render(request, "referee/chain.html", _context(club, None, error=refusal.message,
                                                             anchor=anchor_text), status=400)
    return render(request, "referee/chain.html", _context(
        club, verdict, source=source, anchor=anchor_text, file_name=upload.name if upload else ""))


def _verify_upload(upload: Any, club: Club, anchor: tuple[int, str] | None) -> Verdict:
    if upload.size > MAX_FILE_BYTES:
        raise Refusal(_("The file is larger than %(mb)s MB; verify it with “manage.py verify_chain --file”.")
                      % {"mb": MAX_FILE_BYTES // (1024 * 1024)})
    try:
        data = json.loads(upload.read().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise Refusal(_("The file is not a club export of this application.")) from error
    if not isinstance(data, dict) or data.get("format") != "kortos-club-export":
        raise Refusal(_("The file is not a club export of this application."))
    exported = data.get("club")
    if not isinstance(exported, dict) or exported.get("slug") != club.slug:
        raise Refusal(_("The file is the export of another club, not of %(club)s.") % {"club": club.name})
    return verify_file(data, anchor=anchor)
