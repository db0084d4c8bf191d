"""The chip ledger: every chip movement of a deal (chips) and the ledger's reads (ledger)."""
