"""Model ids in packed literals: the recognised ids a run of back-to-back literals in a compiled binary is made
of, and whether prose names a model. What the catalogs recognise decides; the bytes are `formats/literals.py`'s."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from scanner.catalog.index import Catalog
from scanner.formats.literals import ALNUM, JOINED, MAX_TOKEN, run_around, sized
from scanner.textsafe import decode
from scanner.vocab import CatalogStatus


def named_in_prose(catalog: Catalog, name: str) -> bool:
    """Whether a sentence names this model: only by an id the catalogs list (`Removed support for
    claude-3-opus-20240229` in a changelog). A family-grammar match or a cloud's spelling of an id in a sentence
    (`(e.g. anthropic.claude-sonnet-4-5-v1:0)`, `not claude-opus-4-6-20251101`) is an example, not a model."""
    ident = catalog.identify(name)
    return ident.catalog == CatalogStatus.KNOWN and ident.served_via is None



_TABLE = 3


def packed_tables(catalog: Catalog, data: bytes, starts: Sequence[int]) -> list[str]:
    """The ids of a compiled binary's packed literal tables: runs of at least three recognised ids back to back
    (Rust's `openai.gpt-5.6-solopenai.gpt-5.6-terraopenai.gpt-6-astra…`). One or two ids alone in a run are no
    table: machine code and data can spell them by chance."""
    # `starts`: where the matcher found a model id or a hosted form, in order.
    out: dict[str, None] = {}
    done = -1
    for start in starts:
        if start < done:
            continue
        lo, hi = sized(data, *run_around(data, start, start + 1))
        done = hi
        inside = sorted({s - lo for s in starts[bisect_left(starts, lo) : bisect_left(starts, hi)]})
        ids = split_packed(catalog, data[lo:hi], inside)
        if len(ids) >= _TABLE:
            out.update((name, None) for _, name in ids)
    return list(out)


def split_packed(catalog: Catalog, run: bytes, starts: list[int]) -> list[tuple[int, str]]:
    """The recognised ids a run of packed literals is made of, each with its offset in the run.

    From each candidate start (where the matcher found a hit) the longest prefix the catalogs recognise
    is taken. It must end at the run's end, at a separator (`/` `:` `@`, or `.` not starting a file
    extension), or where another id begins; never before `-` or `_` (that is a cut id), and a run ending
    in `-` is a prefix literal, not an id.
    An id must begin at a separator or where the one before it ended: never inside a longer word, hyphenated
    or not (`#when-to-consider-gpt-61-sol`, a URL anchor, holds no id `gpt-61-sol`).
    """
    while run and run[-1] in b"./:@":
        run = run[:-1]
    starts4 = id_starts(catalog)

    def longest(p: int) -> int | None:
        # An id is at most MAX_TOKEN long, so the work per run is bounded by its hits times that.
        for e in range(min(len(run), p + MAX_TOKEN), p, -1):
            if run[e - 1] not in ALNUM:
                continue
            if e < len(run):
                nxt = run[e]
                if nxt in ALNUM:
                    if run[e : e + 4] not in starts4:
                        continue  # packed: the next literal must begin like an id, a vendor or a route
                elif nxt not in b"./:@" or (nxt == 0x2E and e + 1 < len(run) and run[e + 1] in ALNUM):
                    continue  # `-` or `_` next: a cut id; `.rs`, `.json` next: a file name
            if recognised(catalog, decode(run[p:e])):
                return e
        return None

    out: list[tuple[int, str]] = []
    pending = sorted(s for s in starts if s < len(run))
    ended = -1
    while pending:
        p = pending.pop(0)
        if p < ended or (p > 0 and p != ended and run[p - 1] in JOINED):
            continue
        e = longest(p)
        if e is None:
            continue
        out.append((p, decode(run[p:e])))
        ended = e
        if e < len(run) and run[e] in ALNUM:
            pending.insert(0, e)  # packed: the next literal starts right here
    return out


def recognised(catalog: Catalog, text: str) -> bool:
    """A listed model, a family id or a hosted form of one. A deployment name (`azure/<name>`, free by
    definition) is a model only where a setting selects it, never in compiled code (`azure/app-service`)."""
    return catalog.identify(text).catalog != CatalogStatus.UNKNOWN


_STARTS: dict[int, frozenset[bytes]] = {}


def id_starts(catalog: Catalog) -> frozenset[bytes]:
    """The first four bytes an id (or a vendor or route prefix of one) can begin with, per catalog."""
    known = _STARTS.get(id(catalog))
    if known is None:
        models = [m for f in catalog.files for m in f.models]
        words = [m.id for m in models] + [a for m in models for a in m.aliases]
        words += list(catalog.vendor_names) + [h.route for h in catalog.hosted_forms]
        words += [f"{region}.a" for region in ("us", "eu", "jp", "au", "in", "ca")] + ["apac", "glob"]
        known = frozenset(w.lower().encode()[:4] for w in words if len(w) >= 4 or "." in w)
        _STARTS[id(catalog)] = known
    return known
