"""Which targets a fleet holds: a manifest file (plain lines, TOML or CSV) or a glob, each target with its labels."""

from __future__ import annotations

import csv
import glob
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from scanner.fleet import FleetError, shown

_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]+")


@dataclass(frozen=True)
class FleetTarget:
    name: str  # unique in the fleet: the key of its row in the store
    path: str
    labels: tuple[tuple[str, str], ...] = ()  # sorted (key, value): release, customer, …
    timeout: float | None = None  # seconds; None takes the run's --timeout

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)


def read_manifest(path: Path) -> list[FleetTarget]:
    """Targets from a manifest: `.toml` ([[targets]] name/path/labels), `.csv` (header `name,path,…`: every
    other column is a label), or plain text (one path per line; `#` comments)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FleetError(f"{path}: cannot read the manifest ({exc.__class__.__name__})") from None
    base = path.parent
    if path.suffix.lower() == ".toml":
        targets = _from_toml(text, path, base)
    elif path.suffix.lower() == ".csv":
        targets = _from_csv(text, path, base)
    else:
        targets = [_target(line.strip(), base) for line in text.splitlines() if _is_entry(line)]
    return _unique(targets, str(path))


def from_glob(pattern: str) -> list[FleetTarget]:
    """Targets from a shell glob (`/images/*.qcow2`, `vms/*/`), in sorted order."""
    paths = sorted(glob.glob(pattern))
    if not paths:
        raise FleetError(f"{pattern}: the glob matches nothing")
    return _unique([_target(p.rstrip("/") or p, Path.cwd()) for p in paths], pattern)


def _is_entry(line: str) -> bool:
    s = line.strip()
    return bool(s) and not s.startswith("#")


def _target(
    raw: str, base: Path, name: str | None = None, labels: dict[str, str] | None = None, timeout: float | None = None
) -> FleetTarget:
    p = Path(raw)
    resolved = (p if p.is_absolute() else base / p).absolute()  # scans run in a scratch dir, so never relative
    named = shown(name or _default_name(resolved))
    safe_labels = tuple(sorted((shown(k), shown(v)) for k, v in (labels or {}).items()))
    return FleetTarget(named, str(resolved), safe_labels, timeout)


def _default_name(path: Path) -> str:
    return _NAME_UNSAFE.sub("_", path.name or str(path)) or "target"


def _from_toml(text: str, path: Path, base: Path) -> list[FleetTarget]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FleetError(f"{path}: not valid TOML: {exc}") from None
    rows = doc.get("targets")
    if not isinstance(rows, list) or not rows:
        raise FleetError(f"{path}: expected [[targets]] tables with at least `path`")
    out = []
    for i, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not isinstance(row.get("path"), str):
            raise FleetError(f"{path}: target {i} has no `path`")
        unknown = set(row) - {"name", "path", "labels", "timeout"}
        if unknown:
            raise FleetError(f"{path}: target {i}: unknown key(s) {', '.join(sorted(unknown))}")
        labels = row.get("labels", {})
        if not isinstance(labels, dict):
            raise FleetError(f"{path}: target {i}: `labels` must be a table")
        timeout = row.get("timeout")
        if timeout is not None and (not isinstance(timeout, int | float) or timeout <= 0):
            raise FleetError(f"{path}: target {i}: `timeout` must be a positive number of seconds")
        name = row.get("name")
        out.append(
            _target(
                row["path"],
                base,
                str(name) if name else None,
                {str(k): str(v) for k, v in labels.items()},
                float(timeout) if timeout else None,
            )
        )
    return out


def _from_csv(text: str, path: Path, base: Path) -> list[FleetTarget]:
    reader = csv.DictReader(io.StringIO(text))
    fields = [f.strip() for f in reader.fieldnames or []]
    if "path" not in fields:
        raise FleetError(f"{path}: a CSV manifest needs a header row with `path` (and usually `name`)")
    out = []
    for i, row in enumerate(reader, 2):
        clean = {(k or "").strip(): (v or "").strip() for k, v in row.items() if k is not None}
        if not clean.get("path"):
            raise FleetError(f"{path}:{i}: empty path")
        labels = {k: v for k, v in clean.items() if k not in ("name", "path") and k}
        out.append(_target(clean["path"], base, clean.get("name") or None, labels))
    return out


def _unique(targets: list[FleetTarget], source: str) -> list[FleetTarget]:
    if not targets:
        raise FleetError(f"{source}: no targets")
    seen: set[str] = set()
    for t in targets:
        if t.name in seen:
            raise FleetError(f"{source}: target name {t.name!r} appears twice; names must be unique")
        seen.add(t.name)
    return targets
