"""Jarvis provider shims and helpers."""

__version__ = "1.8.2"
