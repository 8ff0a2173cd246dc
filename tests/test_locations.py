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


def test_what_is_kept_and_counted_does_not_depend_on_the_order_of_sightings() -> None:
    sightings = _mentions("/var/log/a.jsonl", range(1, CANDIDATES + 300))
    sightings += [Location("/var/log/a.jsonl", line, Context.SESSION) for line in range(5, 400, 7)]
    sightings += [Location("/etc/agent.env", line, Context.ENV) for line in range(1, 50)]
    sightings += _mentions("/home/u/notes.md", range(1, 40))
    kept = []
    for seed in range(6):
        shuffled = sightings[:]
        random.Random(seed).shuffle(shuffled)
        locs = Locations()
        for loc in shuffled:
            locs.add(loc)
        assert locs.cut() == _places(sightings) - MAX_LOCATIONS
        kept.append(locs.sorted())
    assert all(k == kept[0] for k in kept)
    # Where the id is wired (the env file, the session lines), then the first mentions in the stable order.
    wired = [loc for loc in kept[0] if loc.context is not Context.CONVERSATION]
    assert len(wired) == 49 + len(range(5, 400, 7))
    mentions = [(loc.path, loc.line) for loc in kept[0] if loc.context is Context.CONVERSATION]
    assert mentions[:40] == [("/home/u/notes.md", line) for line in range(1, 40)] + [("/var/log/a.jsonl", 1)]
