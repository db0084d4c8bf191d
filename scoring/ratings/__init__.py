"""The members' ratings: computed in deal order per club and game (rating), kept and read in few
statements (store), settled after commit by the worker (tasks)."""
