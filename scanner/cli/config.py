"""`modelcensus.toml`: the scan options people repeat, read from the working directory or `--config FILE`.

```toml
[scan]
format = "html"              # any --format
output = "report.html"       # any --output ("-" for stdout)
catalogs = ["acme.toml"]     # added to --catalog; relative to the config file
max_file_size = "128M"
fail_on = "high"             # exit 1 when a finding is at least this severe
ignore_file = ".modelcensus-ignore.toml"   # relative to the config file
```

Every path is relative to the file's directory, wherever modelcensus runs from. Options given on the command line
(or in `MODELCENSUS_*` environment variables) win over the file. An unknown key is an error, so a typo is not
silently ignored.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_NAME = "modelcensus.toml"
_KEYS = {"format", "output", "catalogs", "max_file_size", "fail_on", "ignore_file"}


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class ScanConfig:
    origin: str | None = None
    format: str | None = None
    output: str | None = None
    catalogs: tuple[Path, ...] = field(default=())
    max_file_size: str | None = None
    fail_on: str | None = None
    ignore_file: Path | None = None


def _text(table: dict[str, object], key: str, origin: Path) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise ConfigError(f"{origin}: [scan] {key} must be a string")
    return str(value)


def _output(value: str | None, base: Path) -> str | None:
    return value if value is None or value == "-" else str(base / value)


def load_config(explicit: Path | None, cwd: Path) -> ScanConfig:
    """The explicit file (which must exist), else `modelcensus.toml` in `cwd` if there is one, else defaults."""
    path = explicit if explicit is not None else cwd / DEFAULT_NAME
    if explicit is None and not path.is_file():
        return ScanConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    unknown_top = set(data) - {"scan"}
    if unknown_top:
        raise ConfigError(f"{path}: unknown section(s): {', '.join(sorted(unknown_top))} (only [scan])")
    table = data.get("scan", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [scan] must be a table")
    unknown = set(table) - _KEYS
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) in [scan]: {', '.join(sorted(unknown))}; known: {', '.join(sorted(_KEYS))}"
        )
    catalogs = table.get("catalogs", [])
    if isinstance(catalogs, str):
        catalogs = [catalogs]
    if not isinstance(catalogs, list) or not all(isinstance(c, str) for c in catalogs):
        raise ConfigError(f"{path}: [scan] catalogs must be a list of paths")
    base = path.parent
    return ScanConfig(
        origin=str(path),
        format=_text(table, "format", path),
        output=_output(_text(table, "output", path), base),
        catalogs=tuple(base / c for c in catalogs),
        max_file_size=_text(table, "max_file_size", path),
        fail_on=_text(table, "fail_on", path),
        ignore_file=base / ignore if (ignore := _text(table, "ignore_file", path)) else None,
    )
