"""What looks at the bytes. One module per detector, each ending with its instance, `DETECTOR`; the package is
the registry: every module here but the contract they share is a detector, found by name, so adding one is
adding its file.

No detector depends on another having run: what several need of one file (its config parse, which marks
every location of a file that would not parse with `parse_error`) is computed once on the `FileView`. Nor does
their order matter: the inventory is the same whatever it is (tests/test_detectors.py), and it is the modules'
alphabetical order, so it is the same on every machine.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence

from scanner.detectors.contract import Detector, Settable, Setting
from scanner.fileview.view import FileView

_SHARED = frozenset({"contract"})  # what the detectors share, not a detector


def _registered() -> tuple[Detector, ...]:
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in _SHARED)
    return tuple(importlib.import_module(f"{__name__}.{name}").DETECTOR for name in names)


DETECTORS: tuple[Detector, ...] = _registered()
# The parts of their work a user may turn off (`--no-<name>` on the scan command), in the detectors' order.
SETTINGS: tuple[Setting, ...] = tuple(s for d in DETECTORS if isinstance(d, Settable) for s in d.settings)


def configured(detectors: Sequence[Detector], off: frozenset[str]) -> tuple[Detector, ...]:
    """`detectors` with the settings named in `off` turned off (each is on by default)."""
    if not off:
        return tuple(detectors)
    return tuple(d.configured(off) if isinstance(d, Settable) else d for d in detectors)


__all__ = ["DETECTORS", "SETTINGS", "Detector", "FileView", "Setting", "configured"]
