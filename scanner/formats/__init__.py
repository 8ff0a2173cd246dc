"""Parsers of binary and package formats that detectors share: pure functions over bytes, bounded."""
