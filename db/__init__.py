"""The ground floor, below the Django apps: database plumbing that more than one app uses
(prepared statements, row helpers). It imports nothing of the apps."""
