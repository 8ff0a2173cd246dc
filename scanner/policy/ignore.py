"""`.modelcensus-ignore.toml`: findings and changes accepted on purpose, each with a reason and maybe an expiry.

    [[ignore]]
    id = "kill-switch-disarmed:JARVIS_KILL_SWITCH"   # a finding or change id, a glob of them, or an id's head
    path = "/etc/systemd/**"                          # optional: only where a location matches this glob
    reason = "disarmed on purpose in the staging image"
    expires = 2027-03-31                              # optional: from this day on, it no longer suppresses

A credential is named by `sha256` (the hash the inventory prints, 16 to 64 hex digits), never by its value.
An expired entry stops suppressing and is reported, so an exception cannot outlive its review.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_NAME = ".modelcensus-ignore.toml"
_KEYS = frozenset({"id", "path", "sha256", "reason", "expires"})
_HEX = re.compile(r"^[0-9a-f]{16,64}$")
_TOKEN = re.compile(r"[0-9a-f]{16,64}")


class IgnoreFileError(ValueError):
    """The ignore file cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class IgnoreEntry:
    id: str | None
    path: str | None
    sha256: str | None
    reason: str
    expires: date | None = None

    def expired(self, today: date) -> bool:
        return self.expires is not None and self.expires <= today


@dataclass(frozen=True)
class Subject:
    """What an entry is matched against: a finding or a change, reduced to id, paths and credential hashes."""

    id: str
    paths: tuple[str, ...] = ()
    hashes: tuple[str, ...] = ()


def hashes_in(*texts: str) -> tuple[str, ...]:
    return tuple(sorted({m.group() for t in texts for m in _TOKEN.finditer(t)}))


def id_matches(pattern: str, fid: str) -> bool:
    """A finding's or change's id matches an entry's id when the glob matches it whole, or when the entry names
    the id's head up to a `:` (`external-model-wired:openai` accepts every OpenAI model wired)."""
    return fnmatchcase(fid, pattern) or fid.startswith(pattern + ":")


def matches(entry: IgnoreEntry, subject: Subject) -> bool:
    if entry.id is not None and not id_matches(entry.id, subject.id):
        return False
    if entry.sha256 is not None and not any(
        h.startswith(entry.sha256) or entry.sha256.startswith(h) for h in subject.hashes
    ):
        return False
    return entry.path is None or any(fnmatchcase(p, entry.path) for p in subject.paths)


def first_match(entries: Iterable[IgnoreEntry], subject: Subject, today: date) -> IgnoreEntry | None:
    return next((e for e in entries if not e.expired(today) and matches(e, subject)), None)


def expired_entries(entries: Iterable[IgnoreEntry], today: date) -> tuple[IgnoreEntry, ...]:
    return tuple(e for e in entries if e.expired(today))


def load_ignore_file(path: Path) -> tuple[IgnoreEntry, ...]:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise IgnoreFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise IgnoreFileError(f"{path}: not valid TOML: {exc}") from None
    return parse_ignore(data, str(path))


def parse_ignore(data: dict[str, Any], origin: str) -> tuple[IgnoreEntry, ...]:
    unknown = set(data) - {"ignore"}
    if unknown:
        raise IgnoreFileError(f"{origin}: unknown table(s) {', '.join(sorted(unknown))}; expected [[ignore]] entries")
    raw = data.get("ignore", [])
    if not isinstance(raw, list):
        raise IgnoreFileError(f"{origin}: `ignore` must be an array of tables ([[ignore]])")
    return tuple(_entry(item, f"{origin}: ignore entry {i + 1}") for i, item in enumerate(raw))


def _entry(item: Any, where: str) -> IgnoreEntry:
    if not isinstance(item, dict):
        raise IgnoreFileError(f"{where}: not a table")
    unknown = set(item) - _KEYS
    if unknown:
        raise IgnoreFileError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    for key in ("id", "path", "sha256", "reason"):
        if key in item and not isinstance(item[key], str):
            raise IgnoreFileError(f"{where}: `{key}` must be a string")
    reason = item.get("reason", "").strip()
    if not reason:
        raise IgnoreFileError(f"{where}: every entry needs a `reason`")
    if "id" not in item and "sha256" not in item:
        raise IgnoreFileError(f"{where}: give an `id` or a `sha256`")
    sha = item.get("sha256")
    if sha is not None and not _HEX.match(sha):
        raise IgnoreFileError(f"{where}: `sha256` must be 16 to 64 lowercase hex digits (the hash, never the secret)")
    return IgnoreEntry(item.get("id"), item.get("path"), sha, reason, _date(item.get("expires"), where))


def _date(value: Any, where: str) -> date | None:
    if value is None or (isinstance(value, date) and not hasattr(value, "hour")):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise IgnoreFileError(f"{where}: `expires` must be a date (2027-03-31)")
