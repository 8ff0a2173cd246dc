"""One file's repeated sightings of one fact bundled: the same evidence at many places of a file travels and folds
as one item.

A proxy log names its upstream's base URL, and the model it served, on every line: thousands of evidence objects
that differ only in their line, each pickled from a worker to the parent and folded there one by one. Here the
sightings of one value in one file become one `Sightings`, the first evidence and the locations of the others in
the order they were found, in the place of the first; a value seen once stays as it is. Only the kinds whose
fold takes bundles (`Kind.sightings`) are bundled: their `add(evidence, more)` folds the others' locations as it
would have folded each sighting. A fold meets one file's sightings value by value rather than line by line; an
entry's places, counts and URLs do not hang on that order (places are shown in a stable order and the rest
counted by place; a host's first distinct URLs are taken in the order of their first sightings), save for which
of one file's places take the last of an entry's candidate slots (`Locations`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, cast

from scanner.kinds import KINDS, Evidence
from scanner.model import Location, Skip


@dataclass(frozen=True)
class Sightings:
    """Evidence seen at more than one place of one file: the first sighting, and where the others were."""

    evidence: Evidence
    more: tuple[Location, ...]

    def __reduce__(self) -> tuple[Callable[..., Sightings], tuple[Any, ...]]:
        # From a worker to the parent, places that differ in their line alone (a proxy log's thousands) travel as
        # one place and the lines: a pickled Location is a class, a dict and its fields, each rebuilt on load.
        more = self.more
        if len(more) > 1 and len(shared := set(map(_unlined, more))) == 1:
            return _at_lines, (self.evidence, shared.pop(), tuple(map(_line_of, more)))
        return Sightings, (self.evidence, more)


_UNLINED = tuple(f.name for f in fields(Location) if f.name != "line")
_unlined: Callable[[Location], tuple[Any, ...]] = attrgetter(*_UNLINED)
_line_of: Callable[[Location], int | None] = attrgetter("line")


def _at_lines(evidence: Evidence, shared: tuple[Any, ...], lines: tuple[int | None, ...]) -> Sightings:
    """A bundle whose places differ in their line alone, as `Sightings.__reduce__` sent it."""
    path, *rest = shared  # a Location's fields in order: path, line, then the rest (tests/test_sightings.py)
    return Sightings(evidence, tuple(Location(path, line, *rest) for line in lines))


Item = Evidence | Skip | Sightings


def _value_of(evidence_type: type) -> Callable[[Any], Any]:
    """What a sighting of this type says, less where it was: the fields other than `location`."""
    return attrgetter(*[f.name for f in fields(evidence_type) if f.name != "location"])


_location_of: Callable[[Any], Location] = attrgetter("location")

#: Each bundled evidence type, with what one of its sightings says.
_BUNDLED: dict[type, Callable[[Any], Any]] = {t: _value_of(t) for k in KINDS if k.sightings for t in k.evidence}


def bundled(items: Sequence[Item]) -> list[Item]:
    """`items` with each repeated value of a bundled type folded into one `Sightings` where its first sighting
    was; everything else keeps its order."""
    firsts: dict[tuple[type, Any], int] = {}  # a value -> where its first sighting is in `out`
    more: dict[int, list[Location]] = {}
    out: list[Item] = []
    for item in items:
        value_of = _BUNDLED.get(type(item))
        if value_of is None:
            out.append(item)
            continue
        at = firsts.setdefault((type(item), value_of(item)), len(out))
        if at == len(out):
            out.append(item)
        else:
            more.setdefault(at, []).append(_location_of(item))
    for at, locations in more.items():
        # Only a bundled type's evidence is ever placed where a bundle's first sighting is.
        out[at] = Sightings(cast(Evidence, out[at]), tuple(locations))
    return out


def count(items: Sequence[Item]) -> int:
    """How many sightings `items` hold, each bundle's counted whole."""
    return sum(1 + len(i.more) if isinstance(i, Sightings) else 1 for i in items)
