"""What every lived-in writer shares: the build context, one session's plan, its truth record, a JSONL sink."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lived_filler import Filler
from lived_ids import Ids

# The real session samples: the repo's copies (tests/data/sessions, each folder's SOURCE.txt names its origin),
# so a clean clone builds the same corpus; the shared set when the copies are absent.
_COPIES = Path(__file__).resolve().parent.parent / "tests" / "data" / "sessions"
SAMPLES = _COPIES if _COPIES.is_dir() else Path("/work/shared/samples")


@dataclass
class Ctx:
    root: Path
    ids: Ids
    fill: Filler
    rng: random.Random
    seed: int = 0

    def part(self, key: str) -> Ctx:
        """The context one session (or store) is written with: its ids and choices from a generator seeded by
        the corpus seed and `key` alone. How many draws a session makes depends on the host's files its tool
        output quotes; seeded apart, one session's draws never move another's ids, so its path (a uuid) and
        its truth are the same on every machine."""
        seed = f"{self.seed}:{key}"
        return replace(self, ids=Ids(seed), fill=self.fill.reseeded(seed), rng=random.Random(seed))


@dataclass
class Spec:
    """One session to write: who, on which model and route, how big, what reasoning it keeps."""

    user: str
    model: str
    route: str  # direct, bedrock, vertex, azure, openrouter, …
    start: float  # Unix seconds of its first record
    size: int  # bytes to write (tool output fills the rest)
    reasoning: str  # visible, encrypted or absent: what the writer plants
    extra: dict[str, Any] = field(default_factory=dict)


def iso(when: float, ms: bool = True) -> str:
    t = datetime.fromtimestamp(when, timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z" if ms else \
        t.strftime("%Y-%m-%dT%H:%M:%SZ")


def shown(root: Path, path: Path) -> str:
    return "/" + str(path.relative_to(root))


def truth(path: str, agent: str, user: str, served: list[tuple[str, str]], labels: list[str], reasoning: str,
          models: list[str], session_id: str | None = None, context: str = "session", note: str = "") -> dict[str, Any]:
    """One session of the truth: where, which agent, who served it (vendor, route), the labels the records
    carry, the reasoning visibility planted, the served model ids, and the context (`test` for a fixture)."""
    out: dict[str, Any] = {"path": path, "agent": agent, "user": user,
                           "vendors": sorted({v for v, _ in served}), "served_via": sorted({r for _, r in served}),
                           "labels": labels, "reasoning": reasoning, "models": models, "context": context}
    if session_id:
        out["session_id"] = session_id
    if note:
        out["note"] = note
    return out


class Jsonl:
    """A JSONL file written record by record, counting its bytes."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = path.open("w", encoding="utf-8")
        self.size = 0
        self.lines = 0

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        self.fh.write(line)
        self.size += len(line.encode())
        self.lines += 1

    def close(self) -> None:
        self.fh.close()
