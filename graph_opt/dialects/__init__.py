"""Dialects defined by graph-opt."""
