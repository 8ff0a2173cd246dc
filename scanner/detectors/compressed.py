"""Gzip files (rotated logs, `.jsonl.gz` sessions): their inflated text is matched like any file's.

The content detector sees raw bytes, and a compressed payload hides every key and model id in it. Here the
file is inflated, bounded (MAX_INFLATED bytes, in pieces, every member), and the same catalog patterns run
over the inflated text, with the context its name has without `.gz`. Reaching the cap is recorded.
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.detectors.contract import Derived, Files, Needs
from scanner.fileview.contexts import classify
from scanner.fileview.view import FileView
from scanner.formats import deflate
from scanner.kinds import Evidence
from scanner.model import Skip, SkipReason
from scanner.sessions.reader import GZIP_MAGIC, ReadNotes, chunks

MAX_INFLATED = 64 << 20


class CompressedDetector:
    name = "compressed"
    description = "Catalog patterns (credentials above all) inside gzip-compressed files, inflated bounded"
    needs = Needs((Files(magics=(GZIP_MAGIC,)),))

    def extract(self, view: FileView) -> Iterator[Evidence | Skip | Derived]:
        notes = ReadNotes()
        data = _inflated(view.data, notes)
        if notes.inflate_capped:
            detail = f"gzip content matched only in its first {MAX_INFLATED >> 20} MiB inflated"
            yield Skip(view.path, SkipReason.DECOMPRESSION_LIMIT, detail)
        if notes.inflate_error:
            yield Skip(view.path, SkipReason.PARSE_ERROR, "gzip stream corrupt or cut; the readable part was matched")
        if not data:
            return
        plain = view.entry.path[:-3] if view.entry.path.lower().endswith(".gz") else view.entry.path
        # The inflated bytes, matched as the file's own (in the context of the name without `.gz`).
        yield Derived(data, classify(plain, data[:8192]), cut_label="gzip content")


def _inflated(whole: bytes, notes: ReadNotes) -> bytes:
    """Every gzip member of the file inflated, up to MAX_INFLATED bytes, as `chunks` gives them piece by piece;
    each member here in one call (the file is in memory already, and a man page or a changelog is one member)."""
    if not whole.startswith(GZIP_MAGIC):
        return b"".join(chunks(whole, MAX_INFLATED, notes))  # no gzip: its bytes as they are, as `chunks` gives them
    out: list[bytes] = []
    produced = 0
    data = whole
    while True:
        inflater = deflate.decompressobj(wbits=31)
        try:
            piece = inflater.decompress(data, MAX_INFLATED - produced)
        except deflate.error:
            # A corrupt stream: what precedes the fault is read again piece by piece, as far as it goes.
            return b"".join(chunks(whole, MAX_INFLATED, notes))
        out.append(piece)
        produced += len(piece)
        if inflater.eof:
            data = inflater.unused_data
            if not data.startswith(GZIP_MAGIC):
                break  # the last member (what follows it is no gzip, and is not inflated)
        if produced >= MAX_INFLATED:
            notes.inflate_capped = True
            break
        if not inflater.eof:
            notes.inflate_error = True  # the input ended inside a member
            break
    return out[0] if len(out) == 1 else b"".join(out)


DETECTOR = CompressedDetector()
