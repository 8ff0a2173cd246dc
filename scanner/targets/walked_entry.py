"""What the walk makes of one listed name: a file to read, or a recorded skip saying why not."""

from __future__ import annotations

import stat
from os import stat_result

from scanner.model import Skip, SkipReason
from scanner.targets.base import FileEntry
from scanner.textsafe import display_path

# A file counts as sparse when less than 1/8 of it is allocated and it is big enough to matter.
SPARSE_MIN_SIZE = 1 << 20
SPARSE_RATIO = 8


def entry_or_skip(inside: str, st: stat_result, via: str | None) -> FileEntry | Skip:
    mode = st.st_mode
    if stat.S_ISREG(mode) and st.st_size < SPARSE_MIN_SIZE:  # the common case, decided in one test
        return FileEntry(inside, st.st_size, mode, st.st_uid, st.st_gid, via, st.st_dev, st.st_ino, st.st_nlink)
    # A skip names what the walk met: the symlink, when the file was reached through one.
    shown = display_path(via or inside)
    to = f" (-> {display_path(inside)})" if via else ""
    if not stat.S_IFMT(mode):  # a backend lists a name whose inode it cannot read (a damaged image)
        return Skip(shown, SkipReason.READ_ERROR, "its inode cannot be read" + to)
    if stat.S_ISFIFO(mode):
        return Skip(shown, SkipReason.FIFO, "named pipe" + to)
    if stat.S_ISSOCK(mode):
        return Skip(shown, SkipReason.SOCKET, "unix socket" + to)
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return Skip(shown, SkipReason.DEVICE, ("character device" if stat.S_ISCHR(mode) else "block device") + to)
    if not stat.S_ISREG(mode):
        return Skip(shown, SkipReason.OTHER_TYPE, oct(stat.S_IFMT(mode)) + to)
    allocated = getattr(st, "st_blocks", 0) * 512
    if st.st_size >= SPARSE_MIN_SIZE and allocated * SPARSE_RATIO < st.st_size:
        return Skip(shown, SkipReason.SPARSE, f"size {st.st_size} bytes, {allocated} allocated" + to)
    return FileEntry(
        path=inside,
        size=st.st_size,
        mode=mode,
        uid=st.st_uid,
        gid=st.st_gid,
        via=via,
        dev=st.st_dev,
        ino=st.st_ino,
        nlink=st.st_nlink,
    )
