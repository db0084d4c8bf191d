"""The sentences of the tablet's offline modules (static/js/table/status.js, conflict.js,
drafts.js, offline.js's undo), in the reader's language, for the recording screen's i18n JSON.

A count is said in the page language's plural forms: the browser picks the form with
``Intl.PluralRules`` (CLDR categories "one", "few", "many", "other"), so each counted
sentence is given here for one number of each category. Lithuanian has three forms for whole
numbers (1 įrašas, 2 įrašai, 10 įrašų); English two."""

from __future__ import annotations

from django.utils.translation import get_language
from django.utils.translation import gettext as _

# One whole number of each CLDR plural category a page language uses ("many" is Lithuanian's
# form for fractions, never a count of entries: it reads as "other").
from referee.games.base import plural_forms as _counted


def offline_text() -> dict[str, object]:
    """What status.js, conflict.js, drafts.js and offline.js's undo say (keys are theirs; see each module)."""
    return {
        "language": get_language() or "en",
        # status.js: the sync line.
        "all_saved": _("All saved"),
        "waiting": _counted("%(n)s entry waiting", "%(n)s entries waiting"),
        "sending": _counted("Sending %(n)s entry…", "Sending %(n)s entries…"),
        "offline_kept": _counted("Offline: %(n)s entry kept on this device",
                                 "Offline: %(n)s entries kept on this device"),
        "offline_none": _("Offline: nothing waiting"),
        "retry_when": _("trying again %(when)s"),
        "conflict_status": _("Two versions of this deal: choose which to keep"),
        "signed_out": _("Signed out: sign in again to send what this device keeps"),
        "other_user": _counted("%(n)s entry waits for the scorer who recorded it to sign in on this device",
                               "%(n)s entries wait for the scorer who recorded them to sign in on this device"),
        "last_synced": _("last synced %(time)s (%(ago)s)"),
        "never_synced": _("not synced yet"),
        # conflict.js: the dialog that shows both versions.
        "conflict_title": _("Two versions of this deal"),
        "conflict_title_deal": _("Two versions of deal %(number)s"),
        "conflict_stale": _("Another device recorded in this deal while this tablet's entries were waiting."),
        "conflict_stale_own": _("The server already holds entries this tablet sent before it heard back; "
                                "the entries waiting here were recorded on the deal without them."),
        "conflict_stale_mixed": _("Another device recorded in this deal, and the server also holds entries "
                                  "this tablet sent before it heard back."),
        "from_this_tablet": _("from this tablet"),
        "conflict_verdict": _("The server's referee decided differently from this tablet's."),
        "conflict_refused": _("The server refused an entry this tablet had accepted."),
        "server_version": _("On the server"),
        "my_version": _("On this tablet, not sent yet"),
        "server_unknown": _("The server's version could not be read just now."),
        "server_says": _("The server says: %(error)s"),
        "nothing_recorded": _("Nothing recorded"),
        "deal_start": _("Start of a new deal"),
        "keep_server": _("Keep the server's"),
        "keep_server_help": _("The server's version stays; your entries it does not have are not sent "
                              "and stay listed under “Set aside on this device”."),
        "mine_on_top": _("Put mine after the server's"),
        "mine_on_top_help": _("Your entries are sent after the server's, in order; the referee checks each again."),
        "use_mine": _("Use mine instead of the server's"),
        "use_mine_help": _("The server's entries from #%(first)s on are undone (the audit log keeps them, with "
                           "your name) and yours are stored in their place; the referee checks them again."),
        "use_confirm": _("Use this tablet's entries instead of the server's? The server's entries from "
                         "#%(first)s on are undone; the audit log keeps them, with your name."),
        "use_yes": _("Yes, use mine"),
        "discard_mine": _("Discard mine"),
        "discard_mine_help": _("None of your entries stays in the deal (one the server already took is undone); "
                               "they stay listed under “Set aside on this device”."),
        "discard_confirm": _("Discard this tablet's entries? They will not be sent. "
                             "You can still read them under “Set aside on this device”."),
        "discard_yes": _("Yes, discard mine"),
        "discard_back": _("Back"),
        "resolving": _("Resolving…"),
        "resolve_failed": _("Not resolved: %(error)s"),
        "set_aside_title": _("Set aside on this device"),
        "set_aside_keep_server": _("the server's version was kept"),
        "set_aside_discard_mine": _("discarded"),
        # drafts.js: a half-entered form put back after a reload.
        "draft_restored": _("What was entered before the reload is back in the form."),
        # offline.js: undo on the device (an entry still waiting there is taken back at once; one
        # the server already stores is the server's to undo).
        "undo": _("Undo"),
        "undo_needs_connection": _("This entry is already stored on the server: undoing it needs the connection. "
                                   "Nothing was changed."),
        "undo_later_deal": _("A later deal has started; correct this deal's entries instead of undoing them."),
    }
