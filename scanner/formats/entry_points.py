"""A Python distribution's `entry_points.txt`: the commands it installs."""

from __future__ import annotations


def script_names(text: str) -> tuple[str, ...]:
    """The names under `[console_scripts]` and `[gui_scripts]`: each a command the distribution installs."""
    names: set[str] = set()
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
        elif section in ("console_scripts", "gui_scripts") and "=" in line:
            names.add(line.split("=", 1)[0].strip())
    return tuple(sorted(names))
