"""YAML, from its events: aliases counted against the budget, never expanded past it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass


from scanner.formats.config.items import MAX_ITEMS, Budget, ConfigItem, ParseFailure

# libyaml's C loader where PyYAML was built with it; the pure-Python one is 10-20x slower.
YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# --- YAML ------------------------------------------------------------------------------------------
# Read as a stream of parser events, never composed into a node tree: a 4 MiB file of `- a` lines would
# build a million nodes (hundreds of MB) before the budget could stop it. Anchored nodes keep their events
# (within the budget) so that an alias, merge keys (`<<: *defaults`) included, is walked where it is used.


@dataclass
class _YamlMap:
    path: tuple[str, ...]
    key: str = ""
    expect_key: bool = True
    skip_value: bool = False  # the value of a key that is no scalar (`? [a, b]`)


@dataclass
class _YamlSeq:
    path: tuple[str, ...]
    index: int = 0


@dataclass
class _YamlSkip:
    depth: int = 1


_YamlFrame = _YamlMap | _YamlSeq | _YamlSkip
_NULLS = ("", "~", "null")


def parse_yaml(text: str) -> list[ConfigItem]:
    items: list[ConfigItem] = []
    budget = Budget(items)  # shared by every document of the file
    try:
        _yaml_events(yaml.parse(text.lstrip("\ufeff"), Loader=YAML_LOADER), items, budget)
    except (yaml.YAMLError, RecursionError, UnicodeError) as exc:  # libyaml refuses lone surrogates (UTF-8 only)
        raise ParseFailure(_yaml_error(exc)) from None
    return items


def _yaml_error(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}" if mark is not None else ""
    return f"{type(exc).__name__}{where}"


def _yaml_events(events: Iterator[yaml.Event], items: list[ConfigItem], budget: Budget) -> None:
    stack: list[_YamlFrame] = []
    anchors: dict[str, list[yaml.Event]] = {}
    dropped: set[str] = set()  # anchors whose events went over the budget: their aliases read as nothing
    recording: list[tuple[str, list[yaml.Event], list[int]]] = []  # anchor, its events, open depth
    recorded = 0
    sources: list[Iterator[yaml.Event]] = [events]
    while sources:
        ev = next(sources[-1], None)
        if ev is None:
            sources.pop()
            continue
        if len(sources) == 1:  # the file itself, not an alias being replayed
            if isinstance(ev, yaml.DocumentStartEvent):
                stack, anchors, dropped, recording = [], {}, set(), []
            anchor = getattr(ev, "anchor", None) if isinstance(ev, yaml.NodeEvent) else None
            if anchor is not None and not isinstance(ev, yaml.AliasEvent):
                recording.append((anchor, [], [0]))
            for _, kept, depth in recording:
                kept.append(ev)
                depth[0] += 1 if isinstance(ev, yaml.CollectionStartEvent) else 0
                depth[0] -= 1 if isinstance(ev, yaml.CollectionEndEvent) else 0
            recorded += len(recording)
            while recording and recording[-1][2][0] == 0:
                name, kept, _ = recording.pop()
                anchors[name] = kept
            if recorded > MAX_ITEMS and recording:
                dropped.update(name for name, _, _ in recording)
                recording, recorded = [], 0
        _yaml_event(ev, stack, items, budget, anchors, dropped, sources)


def _skipping(top: _YamlSkip, ev: yaml.Event, stack: list[_YamlFrame]) -> None:
    """An event inside a node being skipped (a complex key and its value): only its depth is followed."""
    if isinstance(ev, yaml.CollectionStartEvent):
        top.depth += 1
    elif isinstance(ev, yaml.CollectionEndEvent):
        top.depth -= 1
        if top.depth == 0:
            stack.pop()


def _yaml_event(
    ev: yaml.Event,
    stack: list[_YamlFrame],
    items: list[ConfigItem],
    budget: Budget,
    anchors: dict[str, list[yaml.Event]],
    dropped: set[str],
    sources: list[Iterator[yaml.Event]],
) -> None:
    top = stack[-1] if stack else None
    if isinstance(top, _YamlSkip):
        _skipping(top, ev, stack)
        return
    if isinstance(ev, yaml.CollectionEndEvent):
        if stack:
            stack.pop()
        return
    if not isinstance(ev, yaml.NodeEvent):
        return  # stream and document boundaries
    if isinstance(ev, yaml.AliasEvent):
        replay = anchors.get(ev.anchor or "")
        if replay is None:
            if ev.anchor in dropped:
                budget.spend("YAML nodes")
                if isinstance(top, _YamlMap):
                    top.expect_key = not top.expect_key
                return
            raise ParseFailure(f"an alias to an undefined anchor *{ev.anchor}")
        sources.append(iter(replay))
        return
    if isinstance(top, _YamlMap) and top.expect_key:
        if isinstance(ev, yaml.ScalarEvent):
            top.key, top.expect_key = str(ev.value), False
        else:  # a complex key: it and its value are skipped
            top.expect_key, top.skip_value = False, True
            stack.append(_YamlSkip())
        return
    budget.spend("YAML nodes")
    if isinstance(top, _YamlMap):
        path = top.path + (top.key,)
        skip, top.expect_key, top.skip_value = top.skip_value, True, False
        if skip:
            if isinstance(ev, yaml.CollectionStartEvent):
                stack.append(_YamlSkip())
            return
    elif isinstance(top, _YamlSeq):
        path = top.path + (f"[{top.index}]",)
        top.index += 1
    else:
        path = ()
    if isinstance(ev, yaml.ScalarEvent):
        if ev.value not in _NULLS:
            items.append(ConfigItem(path, str(ev.value), ev.start_mark.line + 1 if ev.start_mark else None))
    elif isinstance(ev, yaml.MappingStartEvent):
        stack.append(_YamlMap(path))
    elif isinstance(ev, yaml.SequenceStartEvent):
        stack.append(_YamlSeq(path))


