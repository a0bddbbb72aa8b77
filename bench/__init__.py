"""The benchmark: scenarios S1-S6 on a local Temporal dev server (`python -m bench.run`)."""
