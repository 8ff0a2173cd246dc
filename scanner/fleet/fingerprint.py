"""A target's fingerprint: changes when its content may have changed, computed without reading file contents.

A directory's fingerprint hashes every entry's inside path, type, mode, size and mtime (lstat, no symlink
followed, nothing opened); a file's (a disk or container image) hashes its size and mtime with the first and last
MiB of its bytes. Cheap enough to compute for every target of every run, which is what makes a fleet run resumable.
"""

from __future__ import annotations

import hashlib
import os
import stat

_EDGE = 1 << 20
_PSEUDO_TOP = frozenset({"proc", "sys", "dev"})  # as the scan itself skips them


def target_fingerprint(path: str) -> str:
    st = os.stat(path)
    h = hashlib.sha256()
    if stat.S_ISDIR(st.st_mode):
        h.update(b"dir\0")
        _hash_tree(path, h)
    else:
        h.update(f"file\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        with open(path, "rb") as f:
            h.update(f.read(_EDGE))
            if st.st_size > 2 * _EDGE:
                f.seek(st.st_size - _EDGE)
                h.update(f.read(_EDGE))
    return h.hexdigest()


def _hash_tree(root: str, h: hashlib._Hash) -> None:
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            h.update(f"{rel}\0unreadable:{exc.errno}\n".encode("utf-8", "surrogateescape"))
            continue
        subdirs = []
        for e in entries:
            if not rel and e.name in _PSEUDO_TOP:
                continue
            inside = f"{rel}/{e.name}" if rel else e.name
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            h.update(f"{inside}\0{st.st_mode:o}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
            if stat.S_ISDIR(st.st_mode):
                subdirs.append(inside)
        stack.extend(reversed(subdirs))
