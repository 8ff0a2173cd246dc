"""Where bytes come from. Each target kind is one module; `open_target` picks one for a location."""

from scanner.targets.base import FileEntry, ReadFailure, ReadResult, Target
from scanner.targets.directory import DirectoryTarget, WalkOptions

__all__ = ["DirectoryTarget", "FileEntry", "ReadFailure", "ReadResult", "Target", "WalkOptions"]
