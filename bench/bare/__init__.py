"""A bench-only app: the simplest DRF endpoint that inserts one row, as a throughput baseline."""
