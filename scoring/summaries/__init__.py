"""A closed session's summary: built in the background (services), its figures and text
(summary) and its server-side chart (chart)."""
