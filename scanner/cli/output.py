"""Writing a report: stdout, or a file replaced atomically (a CI step never reads half a report)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from scanner.cli.common import fail


def write_output(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        tmp = output.with_name(output.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, output)
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror}")
