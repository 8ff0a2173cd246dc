"""One file's skips grouped per path and reason, so the skip list grows with the files, not with their entries.

A jar of 20,000 damaged members would otherwise be 20,000 skips (a report bigger than the target). A file's
skips of one reason, past a few, become one skip that says how many there were, the first one's detail and
the details of the first few (`members`). Evidence and the other skips keep their order.
"""

from __future__ import annotations

from collections.abc import Sequence

from scanner.model import Skip, SkipReason
from scanner.sightings import Item

GROUP_AFTER = 3  # up to this many skips of one reason in one file are kept as they are
FIRST = 5  # the details a group keeps


def grouped(items: Sequence[Item]) -> list[Item]:
    """`items` with each (path, reason) that has more than GROUP_AFTER skips folded into one, where its first was."""
    counts: dict[tuple[str, SkipReason], list[Skip]] = {}
    for item in items:
        if isinstance(item, Skip):
            counts.setdefault((item.path, item.reason), []).append(item)
    if all(len(found) <= GROUP_AFTER for found in counts.values()):
        return list(items)
    out: list[Item] = []
    done: set[tuple[str, SkipReason]] = set()
    for item in items:
        if not isinstance(item, Skip):
            out.append(item)
            continue
        key = (item.path, item.reason)
        found = counts[key]
        if len(found) <= GROUP_AFTER:
            out.append(item)
        elif key not in done:
            done.add(key)
            out.append(_group(found))
    return out


def _group(found: list[Skip]) -> Skip:
    first = found[0]
    total = sum(s.count or 1 for s in found)
    members = tuple(m for s in found[:FIRST] for m in (s.members or (s.detail,)))[:FIRST]
    detail = f"{total:,} {first.reason.value} skips in this file; the first: {members[0]}"
    return Skip(first.path, first.reason, detail, total, members)
