"""Lowerings from the nn dialect to other dialects (TOSA)."""
