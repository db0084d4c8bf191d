"""Who pays whom at the end of an evening (settlement) and the sentences that explain each
payment (story)."""
