"""A Location's own constructor (set in one update, not field by field) sets every field of the dataclass, in the
order of its fields, and takes each by name and by position: a field added to the class and not to the
constructor fails here."""

from __future__ import annotations

from dataclasses import fields, replace

from scanner.model import Context, Location


def test_every_field_is_set_in_order_by_position_and_by_name() -> None:
    names = [f.name for f in fields(Location)]
    values = ("/etc/x.yaml", 7, Context.ENV, True, "/etc/link", "sha256:ab")
    assert len(values) == len(names)
    by_position = Location(*values)
    assert list(vars(by_position).items()) == list(zip(names, values, strict=True))
    assert Location(**dict(zip(names, values, strict=True))) == by_position
    assert replace(by_position, line=8) == Location("/etc/x.yaml", 8, Context.ENV, True, "/etc/link", "sha256:ab")
    assert vars(Location("/p")) == {f.name: f.default if f.name != "path" else "/p" for f in fields(Location)}
