"""What tells the watchers' poll cache (``web.poll_cache``) that something changed.
Connected in ``WebConfig.ready``; each receiver renews the keys after the change commits."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import post_delete, post_save

from referee import signals
from referee.models import Deal, Entry, Member, Session
from web import poll_cache


def entry_stored(sender: Any, deal: Deal, **kwargs: Any) -> None:
    poll_cache.deals_changed([deal.pk])


def deal_changed(sender: Any, deal: Deal, **kwargs: Any) -> None:
    # Finished or running again: the session's running deal changes for every deal's watchers.
    poll_cache.session_changed(deal.session_id)


def deal_saved(sender: Any, instance: Deal, **kwargs: Any) -> None:
    poll_cache.session_changed(instance.session_id)


def session_saved(sender: Any, instance: Session, **kwargs: Any) -> None:
    poll_cache.session_changed(instance.pk)


def entry_saved(sender: Any, instance: Entry, **kwargs: Any) -> None:
    poll_cache.deals_changed([instance.deal_id])


def member_changed(sender: Any, instance: Member, **kwargs: Any) -> None:
    poll_cache.access_changed(club_id=instance.club_id)


def user_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
    poll_cache.access_changed(user_id=instance.pk)


def signed_out(sender: Any, user: Any = None, **kwargs: Any) -> None:
    if user is not None and user.pk is not None:
        poll_cache.access_changed(user_id=user.pk)


def connect() -> None:
    uid = "referee.poll_cache."
    signals.entry_stored.connect(entry_stored, dispatch_uid=uid + "entry_stored")
    signals.deal_finished.connect(deal_changed, dispatch_uid=uid + "deal_finished")
    signals.deal_reopened.connect(deal_changed, dispatch_uid=uid + "deal_reopened")
    for signal in (post_save, post_delete):
        name = "save" if signal is post_save else "delete"
        signal.connect(deal_saved, sender=Deal, dispatch_uid=f"{uid}deal_{name}")
        signal.connect(entry_saved, sender=Entry, dispatch_uid=f"{uid}entry_{name}")
        signal.connect(member_changed, sender=Member, dispatch_uid=f"{uid}member_{name}")
        signal.connect(user_changed, sender=get_user_model(), dispatch_uid=f"{uid}user_{name}")
    post_save.connect(session_saved, sender=Session, dispatch_uid=uid + "session_save")
    user_logged_out.connect(signed_out, dispatch_uid=uid + "signed_out")
