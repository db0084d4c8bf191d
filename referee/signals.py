"""What the referee tells the rest of the house, without knowing who listens.

``scoring`` connects to these in its ``AppConfig.ready``, so ``referee`` never imports
``scoring`` (no import cycle, not even a lazy one). They are sent inside the transaction
that made the change, so a listener's writes commit or roll back with it.
"""

from __future__ import annotations

from django.dispatch import Signal

#: A deal has just finished (its last entry, or a replay that finishes it): ``deal``, ``state``.
deal_finished = Signal()
#: A finished deal is running again or is about to be replayed (undo, correction): ``deal``.
deal_reopened = Signal()
#: A session was closed (``session``); its close-of-session settlement is written now.
session_closed = Signal()
#: A closed session was reopened (``session``); whatever its close wrote is reversed.
session_reopened = Signal()
#: An entry was stored in a deal (``deal``, its snapshot saved), by whatever path stored it.
entry_stored = Signal()
#: A seat's member was corrected (``session``, ``seat``, ``was`` and ``now`` member ids); the
#: deals' signals have already told scoring; a club night's table follows the seat.
seat_corrected = Signal()
