"""Club nights: an evening's players, its rounds of tables (each table an ordinary session) and
the seating draw (``draw``, pure Python). Above the referee, below scoring."""
