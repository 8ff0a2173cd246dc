"""The work one file of a session log may cost, counted in units of work rather than bytes.

A cap on bytes does not bound the time: 64 MB of `{}` lines is 22 million records, each read, walked and
attributed. A file may cost at most MAX_LINES lines looked at, MAX_RECORDS records and MAX_EVENTS parser events
(what the record walk visits); past any of them the rest is not read as records, and the cut is recorded with
the counts (`budget-exceeded`). Blank lines and repeats of a line, counted in one call, cost nothing here.

Bodies a log keeps compressed (a capture's gzip body, base64 or not) are inflated up to MAX_BODIES_INFLATED bytes
in all: each is bounded on its own, and a file of many small ones, each a bomb of its own, is bounded here. Past
it, later compressed bodies are not decoded, and that is recorded too.
"""

from __future__ import annotations

from dataclasses import dataclass

# Real logs cost far less: the largest Claude Code log of the real-parts bench tree (28 MiB) is 23k records and
# 0.7M parser events, so a 64 MiB one is ~55k records and ~1.6M events. A crafted file meets a bound in a few
# CPU-seconds: a million tiny records ~4 s, ten million events of nested objects ~2.5 s.
MAX_LINES = 2_000_000  # non-blank lines looked at (records, and lines that are no record)
MAX_RECORDS = 1_000_000  # records read and attributed
MAX_EVENTS = 10_000_000  # parser events: containers, keys and list items the record walk visits
# A real cassette's gzip bodies inflate to a few MiB at most; 64 MiB of them is ~1 CPU-s of inflating and parsing.
MAX_BODIES_INFLATED = 64 << 20


@dataclass
class WorkBudget:
    """What one file has cost so far, against its bounds."""

    max_lines: int = MAX_LINES
    max_records: int = MAX_RECORDS
    max_events: int = MAX_EVENTS
    lines: int = 0
    records: int = 0
    events: int = 0
    cut: bool = False  # the budget ran out: the rest of the file was not read as records
    cut_line: int | None = None  # the line it ran out at, in a line-based log
    inflated: int = 0  # bytes the file's compressed bodies inflated to
    max_inflated: int = MAX_BODIES_INFLATED
    bodies_cut: bool = False  # a compressed body was left undecoded: the bodies' budget was spent

    def inflate_room(self) -> int:
        """How many more bytes compressed bodies may inflate to; at none, the cut is recorded."""
        left = self.max_inflated - self.inflated
        if left <= 0:
            self.bodies_cut = True
        return max(left, 0)

    def bodies_detail(self) -> str:
        return (f"compressed bodies inflated up to {self.max_inflated >> 20} MiB in all; later ones not decoded, "
                "their text matched by patterns")

    def spent(self) -> bool:
        return self.lines > self.max_lines or self.records >= self.max_records or self.events >= self.max_events

    def stop(self, line: int | None) -> None:
        self.cut, self.cut_line = True, line

    def take_line(self, number: int) -> bool:
        """Charge one line (`number`); False, and the cut recorded there, when no line is left."""
        self.lines += 1
        if self.lines > self.max_lines:
            self.stop(number)
            return False
        return True

    def detail(self) -> str:
        if self.lines > self.max_lines:
            what = f"{self.max_lines:,} lines"
        elif self.records >= self.max_records:
            what = f"{self.max_records:,} records"
        else:
            what = f"{self.max_events:,} parser events"
        where = f" at line {self.cut_line:,}" if self.cut_line else ""
        lines = min(self.lines, self.max_lines)
        return (
            f"work budget of {what} spent{where} ({self.records:,} records, {lines:,} lines, {self.events:,} "
            "parser events read); the rest not read as records, its text matched by patterns"
        )
