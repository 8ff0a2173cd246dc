"""A gzip file's content inflated once for every reader of its view: the compressed detector matches all of it,
the session sniff reads its head. A man page or a changelog (a tenth of /usr's files) was inflated twice, once
for each; the sniff's inflate was 4% of a scan of /usr.
"""

from __future__ import annotations

from dataclasses import dataclass

from scanner.formats import deflate
from scanner.sessions.formats import SNIFF, head_of
from scanner.sessions.reader import GZIP_MAGIC, ReadNotes, chunks

MAX_INFLATED = 64 << 20


@dataclass(frozen=True)
class Inflated:
    """Every member inflated up to MAX_INFLATED bytes, whether the cap cut it, whether the stream was cut or
    corrupt (its readable part is `data`)."""

    data: bytes
    capped: bool
    error: bool


def inflate(whole: bytes) -> Inflated:
    """The file's content as `chunks` gives it piece by piece (its bytes as they are when it is no gzip)."""
    notes = ReadNotes()
    data = _inflated(whole, notes)
    return Inflated(data, notes.inflate_capped, notes.inflate_error)


def sniffed_head(whole: bytes, inflated: Inflated) -> bytes:
    """The head the session sniff reads (`head_of`): the first SNIFF bytes inflated. A cut or corrupt stream's
    is inflated again bounded to SNIFF, as `head_of` does: a call that meets a fault loses its output, and a call
    bounded to SNIFF may end before the fault that cost the whole inflate the same bytes."""
    if inflated.error or not whole.startswith(GZIP_MAGIC):
        return head_of(whole)
    return inflated.data[:SNIFF]


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
