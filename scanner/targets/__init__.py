"""Where bytes come from. Each target kind is one module; `open_target` picks one for a location."""

from scanner.targets.base import FileEntry, ReadFailure, ReadResult, Target
from scanner.targets.walker import Walker, WalkOptions

__all__ = ["Walker", "FileEntry", "ReadFailure", "ReadResult", "Target", "WalkOptions"]
