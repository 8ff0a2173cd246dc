"""Gzip files (rotated logs, `.jsonl.gz` sessions): their inflated text is matched like any file's.

The content detector sees raw bytes, and a compressed payload hides every key and model id in it. Here the
file is inflated, bounded (MAX_INFLATED bytes, in pieces, every member), and the same catalog patterns run
over the inflated text, with the context its name has without `.gz`. Reaching the cap is recorded.
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.detectors.contract import Derived, Files, Needs
from scanner.fileview.contexts import classify
from scanner.fileview.gzipped import MAX_INFLATED
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.model import Skip, SkipReason
from scanner.sessions.reader import GZIP_MAGIC


class CompressedDetector:
    name = "compressed"
    description = "Catalog patterns (credentials above all) inside gzip-compressed files, inflated bounded"
    needs = Needs((Files(magics=(GZIP_MAGIC,)),))

    def extract(self, view: FileView) -> Iterator[Evidence | Skip | Derived]:
        inflated = view.inflated  # shared with the session sniff, which may have inflated it already
        data = inflated.data
        if inflated.capped:
            detail = f"gzip content matched only in its first {MAX_INFLATED >> 20} MiB inflated"
            yield Skip(view.path, SkipReason.DECOMPRESSION_LIMIT, detail)
        if inflated.error:
            yield Skip(view.path, SkipReason.PARSE_ERROR, "gzip stream corrupt or cut; the readable part was matched")
        if not data:
            return
        plain = view.entry.path[:-3] if view.entry.path.lower().endswith(".gz") else view.entry.path
        # The inflated bytes, matched as the file's own (in the context of the name without `.gz`).
        yield Derived(data, classify(plain, data[:8192]), cut_label="gzip content")


DETECTOR = CompressedDetector()
