"""Which running processes matter to the inventory, and why: pure functions over plain process facts.

A process is relevant when it holds an LLM SDK's files open or mapped, carries LLM-related variables in
its environment, runs (or is handed on its command line) a file the filesystem scan found evidence in,
or talks to an endpoint of the inventory. The SDK names come from the catalogs, never from code.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone

from scanner.catalog import Catalog
from scanner.catalog.specs import SdkSpec
from scanner.kinds import Inventory
from scanner.kinds.connections import ConnectionEntry
from scanner.kinds.processes import ProcessEntry, ProcessEnvVar, ProcessSdk, ProcessTie
from scanner.live.process_facts import ProcessFacts
from scanner.model import WIRING_CONTEXTS, Location
from scanner.secrets import redact
from scanner.textsafe import display_path

MAX_TIE_NAMES = 20
_PY_PKG = re.compile(r"/(?:site|dist)-packages/(.+)$")
_NODE_PKG = re.compile(r"/node_modules/((?:@[^/]+/)?[^/]+)/")
_FLAG = re.compile(r"^--?([A-Za-z][A-Za-z0-9_\-]*)(?:=(.*))?$", re.DOTALL)
# A setting handed as one argument (`OPENAI_API_KEY=…` to `env`, a header `x-api-key: …` to curl), or as a flag's
# value (`--header=x-api-key: …`); matched from where it starts.
_SETTING = re.compile(r"([A-Za-z][A-Za-z0-9_\-]*)(?:=|:\s*)(.+)$", re.DOTALL)
# An HTTP authorization's credentials (`Authorization: Bearer …`, `Basic …`), wherever the argument holds them.
_AUTHORIZATION = re.compile(r"""(?i)\b(bearer|basic)\s+([^\s,;"']+)""")
_USERINFO = re.compile(r"(?<=://)[^/@\s]*@")  # `https://user:password@host`
_SECRET_SUFFIXES = ("_api_key", "_apikey", "_token", "_secret", "_password", "api_key", "apikey")


class SdkIndex:
    """Catalog SDKs by the directory they are installed in (`anthropic/`, `google/genai/`, `@anthropic-ai/sdk`)."""

    def __init__(self, catalog: Catalog) -> None:
        self.python: list[tuple[str, SdkSpec]] = []
        self.node: dict[str, SdkSpec] = {}
        for f in catalog.files:
            for spec in f.sdks:
                if spec.ecosystem == "pypi":
                    dirs = set(spec.imports) or {spec.name.replace("-", "_").lower()}
                    self.python += [(d.replace(".", "/") + "/", spec) for d in dirs]
                elif spec.ecosystem == "npm":
                    self.node.setdefault(spec.name, spec)
        # The deepest package directory wins (`google/genai/` before `google/`).
        self.python.sort(key=lambda p: (-p[0].count("/"), p[0]))

    def owner(self, path: str) -> tuple[SdkSpec, str] | None:
        m = _PY_PKG.search(path)
        if m:
            rest = m.group(1)
            for prefix, spec in self.python:
                if rest.startswith(prefix):
                    return spec, path
        for m in _NODE_PKG.finditer(path):
            node = self.node.get(m.group(1))
            if node is not None:
                return node, path
        return None


def sdks_loaded(files: Sequence[str], index: SdkIndex) -> tuple[ProcessSdk, ...]:
    """One entry per SDK the process holds files of (the first such file, in sorted order, as proof)."""
    found: dict[tuple[str, str], ProcessSdk] = {}
    for path in sorted(files):
        owned = index.owner(path)
        if owned is None:
            continue
        spec, proof = owned
        key = (spec.ecosystem, spec.name)
        if key not in found:
            found[key] = ProcessSdk(spec.ecosystem, spec.name, spec.vendor, display_path(proof))
    return tuple(found[k] for k in sorted(found))


def scrub_cmdline(cmdline: Sequence[str], catalog: Catalog) -> tuple[str, ...]:
    """The command line with every credential redacted: catalog formats anywhere, the value of a secret-named flag
    or setting (`--api-key X`, `--token=X`, `HF_TOKEN=X`, `x-api-key: X`), an authorization's credentials and a
    URL's user info."""
    secret_keys = catalog.keys("credential")

    def secret_named(name: str) -> bool:
        key = name.lower().replace("-", "_")
        return key in secret_keys or key.endswith(_SECRET_SUFFIXES)

    out: list[str] = []
    hide_next = False
    for arg in cmdline:
        if hide_next:
            out.append(redact(arg, ""))
            hide_next = False
            continue
        flag = _FLAG.match(arg)
        if flag and flag.group(2) is None:
            hide_next = secret_named(flag.group(1))
        else:
            named = flag if flag and secret_named(flag.group(1)) else _SETTING.match(arg, flag.start(2) if flag else 0)
            if named and secret_named(named.group(1)):
                arg = arg[: named.start(2)] + redact(named.group(2), "")
        arg = _AUTHORIZATION.sub(lambda a: f"{a.group(1)} {redact(a.group(2), '')}", _USERINFO.sub("", arg))
        out.append(display_path(catalog.scrub(arg)))
    return tuple(out)


def _by_wired_path(named: Iterable[tuple[str, Iterable[Location]]]) -> dict[str, set[str]]:
    """Names by each file that wires them (a config, not a mention; never a live /proc path)."""
    out: dict[str, set[str]] = defaultdict(set)
    for name, locations in named:
        for loc in locations:
            if loc.context in WIRING_CONTEXTS and not loc.path.startswith("/proc/"):
                out[loc.path].add(name)
    return out


class FileIndex:
    """What the filesystem scan found, by inside path: the facts a process inherits from its files."""

    def __init__(self, inv: Inventory) -> None:
        self.models = _by_wired_path((m.name, m.locations) for m in inv.models)
        self.endpoints = _by_wired_path((e.host, e.locations) for e in inv.endpoints)
        self.switches = _by_wired_path((k.name, k.locations) for k in inv.kill_switches)
        self.credentials = _by_wired_path((c.redacted, (cl.location for cl in c.locations))
                                          for c in inv.credentials)

    def tie(self, path: str, role: str) -> ProcessTie | None:
        def top(names: set[str]) -> tuple[str, ...]:
            return tuple(sorted(names)[:MAX_TIE_NAMES])

        tie = ProcessTie(
            path,
            role,
            top(self.models.get(path, set())),
            top(self.endpoints.get(path, set())),
            top(self.switches.get(path, set())),
            top(self.credentials.get(path, set())),
        )
        return tie if (tie.models or tie.endpoints or tie.kill_switches or tie.credentials) else None


def to_inside(host_path: str, root: str) -> str | None:
    """A host path as a path inside the audited root (the identity when the root is `/`)."""
    if root == "/":
        return host_path
    root = root.rstrip("/")
    if host_path.startswith(root + "/"):
        return host_path[len(root) :]
    return None


def ties(facts: ProcessFacts, files: FileIndex, root: str) -> tuple[ProcessTie, ...]:
    """The executable, and files named on the command line (a script, `--config /etc/…`), that the scan knows."""
    wanted: list[tuple[str, str]] = []
    if facts.exe:
        wanted.append((facts.exe, "exe"))
    for arg in facts.cmdline[1:]:
        m = _FLAG.match(arg)
        value = m.group(2) if m and m.group(2) else arg
        if value.startswith("/"):
            wanted.append((value, "argument"))
    found: dict[str, ProcessTie] = {}
    for host_path, role in wanted:
        inside = to_inside(host_path, root)
        tie = files.tie(display_path(inside), role) if inside else None
        if tie is not None and tie.path not in found:
            found[tie.path] = tie
    return tuple(found[p] for p in sorted(found))


def process_entry(
    facts: ProcessFacts,
    cmdline: tuple[str, ...],
    variables: tuple[ProcessEnvVar, ...],
    sdks: tuple[ProcessSdk, ...],
    tied: tuple[ProcessTie, ...],
    connections: Sequence[ConnectionEntry],
    root: str,
    roles: Sequence[str] = (),
) -> ProcessEntry | None:
    """The inventory entry of a process, or None when nothing about it concerns models or providers."""
    reasons = {f"role:{r}" for r in roles}
    reasons |= {f"sdk-loaded:{s.name}" for s in sdks}
    reasons |= {f"llm-env:{v.name}" for v in variables}
    reasons |= {f"known-file:{t.path}" for t in tied}
    reasons |= {f"connects-to:{c.endpoint}" for c in connections if c.endpoint}
    if not reasons:
        return None
    listening = tuple(sorted({f"{c.local}/{c.protocol}" for c in connections if c.remote is None}))
    exe = to_inside(facts.exe, root) if facts.exe else None
    return ProcessEntry(
        pid=facts.pid,
        ppid=facts.ppid,
        name=display_path(facts.name),
        user=facts.user,
        exe=display_path(exe or facts.exe) if facts.exe else None,
        cmdline=cmdline,
        started=iso(facts.started),
        relevance=tuple(sorted(reasons)),
        sdks=sdks,
        environment=variables,
        ties=tied,
        listening=listening,
    )


def roles_of(facts: ProcessFacts, catalog: Catalog) -> tuple[str, ...]:
    """The roles the catalogs recognise in the program's executable and command line."""
    command = " ".join([facts.exe or "", *facts.cmdline])
    return tuple(sorted({spec.role for spec in catalog.process_roles(command)}))


def iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
