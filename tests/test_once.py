"""`once` (scanner/fileview/once.py): a value computed on its first read, kept on the instance, as
`functools.cached_property` does, without a lock."""

from __future__ import annotations

import pytest

from scanner.fileview.once import once


class _Counted:
    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail

    @once
    def value(self) -> list[int]:
        """The value, counted."""
        self.calls += 1
        if self.fail:
            raise ValueError("not yet")
        return [self.calls]


def test_the_value_is_computed_on_the_first_read_only_and_per_instance() -> None:
    a, b = _Counted(), _Counted()
    assert a.value is a.value and a.calls == 1
    assert b.value == [1] and b.value is not a.value
    assert _Counted.value.__doc__ == "The value, counted." and isinstance(_Counted.value, once)


def test_a_value_that_raised_is_computed_again_on_the_next_read() -> None:
    counted = _Counted(fail=True)
    with pytest.raises(ValueError):
        _ = counted.value
    counted.fail = False
    assert counted.value == [2] and counted.value == [2]
