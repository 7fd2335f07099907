"""Patterns and constant evaluation that several passes share."""
