"""Real-shaped session logs of any size, for the tests that prove a bound never cuts real data.

The records are the real ones of tests/data/sessions (a Claude Code session, a Codex CLI rollout), repeated with
fresh ids (each keeps its shape: prefix, length, alphabet), a later time each and real text in every text
field: slices of the Python standard library's own sources, of a length drawn around the original's. No two
records are alike, as in a real log; deterministic (seeded).
"""

from __future__ import annotations

import json
import random
import sysconfig
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "sessions"
CLAUDE = DATA / "claude-code" / "session-basic.jsonl"
CODEX = DATA / "codex-cli" / "rollout-session-basic.jsonl"
_TEXT_KEYS = frozenset({"content", "text", "thinking", "output", "message", "last_agent_message", "input"})
_ID_KEYS = frozenset({"uuid", "parentUuid", "leafUuid", "promptId", "id", "requestId", "call_id", "tool_use_id",
                      "turn_id", "session_id", "sessionId"})


@dataclass(frozen=True)
class BigLog:
    data: bytes
    records: int  # lines, every one a record
    sessions: tuple[str, ...]  # the session ids, in order


def _corpus(limit: int = 8 << 20) -> str:
    files = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    parts, size = [], 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        parts.append(text)
        size += len(text)
        if size > limit:
            break
    return "".join(parts)


class _Fresh:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.corpus = _corpus()
        self.clock = datetime(2026, 8, 20, 10, 21, 52, tzinfo=timezone.utc)

    def timestamp(self) -> str:
        """The next record's time: a few hundred milliseconds to a minute after the last."""
        self.clock += timedelta(milliseconds=self.rng.randrange(200, 60_000))
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def text(self, like: str) -> str:
        n = int(max(40, len(like)) * self.rng.lognormvariate(0, 1))
        n = min(max(n, 20), 16_000)
        start = self.rng.randrange(0, len(self.corpus) - n - 1)
        return self.corpus[start : start + n]

    def id(self, like: str) -> str:
        """A new id of `like`'s shape: its prefix up to `_` and two more characters kept, every other letter
        or digit replaced by one of its own class (hex stays hex)."""
        cut = like.find("_") + 3 if "_" in like else 0
        hexy = all(c in "0123456789abcdef-" for c in like[cut:])
        out = []
        for c in like[cut:]:
            if c.isdigit() or (hexy and c.isalnum()):
                out.append(self.rng.choice("0123456789abcdef" if hexy else "0123456789"))
            elif c.islower():
                out.append(self.rng.choice("abcdefghijklmnopqrstuvwxyz"))
            elif c.isupper():
                out.append(self.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
            else:
                out.append(c)
        return like[:cut] + "".join(out)

    def record(self, value: Any, key: str, session: str, ids: dict[str, str]) -> Any:
        if isinstance(value, dict):
            return {k: self.record(v, k, session, ids) for k, v in value.items()}
        if isinstance(value, list):
            return [self.record(v, key, session, ids) for v in value]
        if not isinstance(value, str) or not value:
            return value
        if key in ("sessionId", "session_id"):
            return session
        if key == "timestamp":
            return self.timestamp()
        if key in _ID_KEYS:
            return ids.setdefault(value, self.id(value))
        if key in _TEXT_KEYS:
            return self.text(value)
        return value


def real_log(kind: str, size: int, sessions: int = 1, seed: int = 20261201) -> BigLog:
    """A log of about `size` bytes in `kind`'s format ("claude-code" or "codex"): Claude Code records over
    `sessions` session ids in turn (a session resumed), a Codex rollout as one session under its meta record."""
    fresh = _Fresh(seed)
    source = CLAUDE if kind == "claude-code" else CODEX
    base = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    meta, body = (base[0], base[1:]) if kind == "codex" else (None, base)
    names = tuple(fresh.id("9c42ba52-3bf1-449f-a040-8ee33284a1c8") for _ in range(sessions))
    lines: list[bytes] = []
    if meta is not None:
        lines.append(json.dumps(fresh.record(meta, "", names[0], {}), separators=(",", ":")).encode())
    total = 0
    while total < size:
        session = names[min(len(names) - 1, total * len(names) // size)]
        ids: dict[str, str] = {}  # one copy's ids: its records still name each other
        for record in body:
            line = json.dumps(fresh.record(record, "", session, ids), separators=(",", ":")).encode()
            lines.append(line)
            total += len(line) + 1
    return BigLog(b"\n".join(lines) + b"\n", len(lines), names)
