"""The psutil boundary: which processes are in scope, and plain facts about each one.

Nothing outside this module imports psutil. A part of a process that cannot be read (another user's
environ, a zombie's files) becomes a `denied` entry with its reason, never an exception: an audit run
as an unprivileged user still completes and says what it could not see.
"""

from __future__ import annotations

import fnmatch
import os
import socket
from collections.abc import Callable, Iterator
from typing import TypeVar

import psutil

from scanner.live.process_facts import Gone, ProcessFacts, Socket
from scanner.live.scope import Scope

# Bounds for hostile or huge processes: a daemon with 100k sockets must not exhaust the auditor.
MAX_FILES = 20_000
MAX_CONNECTIONS = 5_000
MAX_ENV_VARS = 5_000
MAX_CMDLINE = 256

T = TypeVar("T")


def matches_scope(scope: Scope, pid: int, user: str | None, exe: str | None, name: str) -> bool:
    """Pure: whether a process with these facts is in scope (pid, user and exe globs must all allow it)."""
    if scope.pids and pid not in scope.pids:
        return False
    if scope.users and user not in scope.users:
        return False
    if scope.exe_globs:
        # An unreadable exe (another user's process) is matched by its name, which is always visible.
        subject = [s for s in (exe, name) if s]
        return any(fnmatch.fnmatchcase(s, g) for g in scope.exe_globs for s in subject)
    return True


def gather(scope: Scope) -> tuple[list[ProcessFacts], list[Gone]]:
    """Facts of every process in scope. The environ of a process is read only once it is in scope."""
    facts: list[ProcessFacts] = []
    gone: list[Gone] = []
    for pid, proc in _candidates(scope, gone):
        try:
            with proc.oneshot():
                user, _ = _part(proc.username)
                exe, _ = _part(proc.exe)
                name = _part(proc.name)[0] or ""
                if not matches_scope(scope, pid, user, exe, name):
                    continue
                facts.append(_facts(proc, pid, name, user, exe))
        except psutil.NoSuchProcess:
            gone.append(Gone(pid, "process exited during the audit"))
    facts.sort(key=lambda f: f.pid)
    return facts, sorted(gone, key=lambda g: g.pid)


def _candidates(scope: Scope, gone: list[Gone]) -> Iterator[tuple[int, psutil.Process]]:
    if scope.pids:
        for pid in sorted(set(scope.pids)):
            try:
                yield pid, psutil.Process(pid)
            except psutil.NoSuchProcess:
                gone.append(Gone(pid, "no such process"))
            except psutil.AccessDenied:
                gone.append(Gone(pid, "access denied"))
        return
    me = os.getpid()
    for proc in psutil.process_iter():
        if proc.pid != me:  # the auditor is not part of what it audits
            yield proc.pid, proc


def _facts(proc: psutil.Process, pid: int, name: str, user: str | None, exe: str | None) -> ProcessFacts:
    denied: list[tuple[str, str]] = []

    def read(part: str, fn: Callable[[], T]) -> T | None:
        value, why = _part(fn)
        if why:
            denied.append((part, why))
        return value

    ppid = read("ppid", proc.ppid)
    cmdline = read("cmdline", proc.cmdline) or []
    started = read("create-time", proc.create_time)
    if exe is None:
        denied.append(("exe", "access denied"))
    env = read("environ", proc.environ)
    files = set()
    for f in read("open-files", proc.open_files) or []:
        files.add(f.path)
    for m in read("memory-maps", lambda: proc.memory_maps(grouped=True)) or []:
        if m.path.startswith("/"):
            files.add(m.path)
    conns = read("connections", lambda: proc.net_connections(kind="inet")) or []
    sockets = [_socket(c) for c in conns[:MAX_CONNECTIONS]]
    environ = None if env is None else tuple(sorted(env.items())[:MAX_ENV_VARS])
    return ProcessFacts(
        pid=pid,
        ppid=ppid,
        name=name,
        user=user,
        exe=exe,
        cmdline=tuple(cmdline[:MAX_CMDLINE]),
        started=started,
        environ=environ,
        files=tuple(sorted(files)[:MAX_FILES]),
        sockets=tuple(sorted(sockets, key=_socket_key)),
        denied=tuple(denied),
    )


def _part(fn: Callable[[], T]) -> tuple[T | None, str | None]:
    """One psutil read: the value, or None and why not. NoSuchProcess propagates (the whole process is gone)."""
    try:
        return fn(), None
    except psutil.ZombieProcess:
        return None, "zombie process"
    except psutil.AccessDenied:
        return None, "access denied"
    except psutil.NoSuchProcess:
        raise
    except OSError as exc:
        return None, exc.strerror or type(exc).__name__


def _socket(c: object) -> Socket:
    laddr = getattr(c, "laddr", None)
    raddr = getattr(c, "raddr", None)
    kind = getattr(c, "type", None)
    return Socket(
        protocol="udp" if kind == socket.SOCK_DGRAM else "tcp",
        local=(laddr.ip, laddr.port) if laddr else None,
        remote=(raddr.ip, raddr.port) if raddr else None,
        state=str(getattr(c, "status", "NONE")),
    )


def _socket_key(s: Socket) -> tuple[str, str, int, str, int, str]:
    local = s.local or ("", 0)
    remote = s.remote or ("", 0)
    return (s.protocol, local[0], local[1], remote[0], remote[1], s.state)


def host_facts() -> tuple[str, str, float | None]:
    """Host name, kernel release and boot time (epoch seconds) of the running machine."""
    uname = os.uname()
    try:
        boot: float | None = psutil.boot_time()
    except (OSError, RuntimeError):
        boot = None
    return uname.nodename, uname.release, boot
