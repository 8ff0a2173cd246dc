"""An entry's locations as sightings arrive: the candidates kept are bounded, and every place left out is counted
once, whatever the order the sightings came in."""

from __future__ import annotations

import random

from scanner.kinds.base import Locations
from scanner.model import MAX_LOCATIONS, Context, Location

CANDIDATES = MAX_LOCATIONS * 4  # what an entry holds before it counts places instead of keeping them


def _mentions(path: str, lines: range) -> list[Location]:
    return [Location(path, line, Context.CONVERSATION) for line in lines]


def _places(sightings: list[Location]) -> int:
    return len({(loc.path, loc.line, loc.via) for loc in sightings})


def test_a_place_cut_as_a_mention_then_kept_as_wiring_is_not_counted_as_cut() -> None:
    # A proxy log's line names a host in its conversation (read first) and in its structure (a session field).
    locs = Locations()
    full = _mentions("/var/log/a.jsonl", range(1, CANDIDATES + 1))
    line = Location("/var/log/b.jsonl", 7, Context.CONVERSATION)
    served = Location("/var/log/b.jsonl", 7, Context.SESSION)
    for loc in [*full, line, served]:
        locs.add(loc)
    kept = locs.sorted()
    assert served in kept and len(kept) == MAX_LOCATIONS
    assert locs.cut() == _places([*full, served]) - MAX_LOCATIONS


def test_the_count_of_places_cut_does_not_depend_on_the_order_of_sightings() -> None:
    sightings = _mentions("/var/log/a.jsonl", range(1, CANDIDATES + 300))
    sightings += [Location("/var/log/a.jsonl", line, Context.SESSION) for line in range(5, CANDIDATES + 300, 7)]
    sightings += [Location("/etc/agent.env", line, Context.ENV) for line in range(1, 50)]
    for seed in range(5):
        shuffled = sightings[:]
        random.Random(seed).shuffle(shuffled)
        locs = Locations()
        for loc in shuffled:
            locs.add(loc)
        assert locs.cut() == _places(sightings) - MAX_LOCATIONS
        assert all(loc.context is Context.ENV for loc in locs.sorted()[:49])  # where it is wired stays
