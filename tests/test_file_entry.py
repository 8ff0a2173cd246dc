"""A walked file's entry (`FileEntry`) sets its fields in one update and pickles as a tuple of them (it crosses to a
worker for each file): what it holds, compares, hashes and sends is every field, as a frozen dataclass's would be."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from multiprocessing.reduction import ForkingPickler

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scanner.targets.base import FileEntry

_ENTRIES = st.builds(
    FileEntry,
    path=st.text(),
    size=st.integers(min_value=0),
    mode=st.integers(min_value=0, max_value=0o177777),
    uid=st.integers(min_value=0),
    gid=st.integers(min_value=0),
    via=st.none() | st.text(),
    dev=st.integers(min_value=0),
    ino=st.integers(min_value=0),
    nlink=st.integers(min_value=0),
)


def test_its_constructor_takes_every_field_in_order_with_its_default() -> None:
    params = list(inspect.signature(FileEntry.__init__).parameters.values())[1:]
    assert [(p.name, p.default) for p in params] == [
        (f.name, inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(FileEntry)
    ]


@given(_ENTRIES)
def test_an_entry_crosses_to_a_worker_whole(entry: FileEntry) -> None:
    for sent in (pickle.dumps(entry), bytes(ForkingPickler.dumps(entry))):
        back = pickle.loads(sent)
        assert type(back) is FileEntry
        assert back == entry and hash(back) == hash(entry)
        assert vars(back) == vars(entry) == {f.name: getattr(entry, f.name) for f in dataclasses.fields(FileEntry)}


def test_an_entry_is_frozen_and_replaceable() -> None:
    entry = FileEntry("/etc/x", 3, 0o100644, 0, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.size = 4  # type: ignore[misc]
    moved = dataclasses.replace(entry, path="/etc/y", via="/etc/z")
    assert (moved.path, moved.via, moved.size, moved.nlink) == ("/etc/y", "/etc/z", 3, 1)
    assert moved != entry
