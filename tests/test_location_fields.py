"""A Location's own constructor and pickling (written by hand, not the dataclass's) set every field of the dataclass
and take each by name and by position: a field added to the class and not to them fails here."""

from __future__ import annotations

import copy
import pickle
from dataclasses import fields, replace

from scanner.model import Context, Location


def test_every_field_is_set_in_order_by_position_and_by_name() -> None:
    names = [f.name for f in fields(Location)]
    values = ("/etc/x.yaml", 7, Context.ENV, True, "/etc/link", "sha256:ab")
    assert len(values) == len(names)
    by_position = Location(*values)
    assert [getattr(by_position, name) for name in names] == list(values)
    assert Location(**dict(zip(names, values, strict=True))) == by_position
    assert replace(by_position, line=8) == Location("/etc/x.yaml", 8, Context.ENV, True, "/etc/link", "sha256:ab")
    defaults = [f.default for f in fields(Location)[1:]]
    assert [getattr(Location("/p"), f.name) for f in fields(Location)] == ["/p", *defaults]


def test_a_location_is_slotted_and_pickles_and_copies_whole() -> None:
    """An inventory holds hundreds of thousands of locations: no per-object dict. A worker sends them pickled."""
    values = ("/etc/x.yaml", 7, Context.ENV, True, "/etc/link", "sha256:ab")
    location = Location(*values)
    assert not hasattr(location, "__dict__")
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(location, protocol))
        assert back == location and hash(back) == hash(location)
        assert [getattr(back, f.name) for f in fields(Location)] == list(values)
    assert copy.copy(location) == location == copy.deepcopy(location)
