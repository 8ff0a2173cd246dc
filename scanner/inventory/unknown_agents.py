"""Agent products of unknown kind: installed programs no catalog names that call models, with their users' configs.

A program (`ProgramEvidence`) is an agent product when
- it calls models: it declares a catalogued LLM SDK, carries one installed inside it (its own node_modules, its
  tool venv), or has catalogued provider API hosts in its own code (`ProgramHostsEvidence`);
- it exposes a command;
- and it is installed as a tool (a global npm package, a uv tool or pipx venv, a user site), or a user keeps a
  config or state folder of its name (`~/.grok`, `~/.config/gptme`, `~/.local/share/<name>`) where the generic
  readers found models, MCP servers or credentials.
Its configs are what the generic readers found in those folders, per user: the wired models (with the route the
models section gives them), the MCP servers and the credentials' hashes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from scanner.formats.install_paths import python_tool_site
from scanner.kinds.agents import AgentConfig, AgentEntry, BundledSdk, ProgramEvidence, ProgramHostsEvidence
from scanner.kinds.credentials import CredentialEntry
from scanner.kinds.mcp_servers import McpServerEntry
from scanner.kinds.models import ModelEntry
from scanner.model import Location
from scanner.targets.ownership import home_of_path

SdkKey = tuple[str, str, str | None, bool, str | None]  # ecosystem, name, version, installed, environment
_MIN_PREFIX = 4  # a folder name shorter than this must equal a command or package name
_MAX_EVIDENCE = 8


@dataclass(frozen=True)
class Found:
    """What the generic readers found in the homes, by path."""

    models: Sequence[ModelEntry]
    mcp_servers: Sequence[McpServerEntry]
    credentials: Sequence[CredentialEntry]
    # The route a file states for a model (`ANTHROPIC_BASE_URL` beside its `model`): one program's config may
    # route an id that another's sends elsewhere, while the models section gives the id one route.
    routes_at: Mapping[tuple[str, str], str | None] = field(default_factory=dict)


def folder_of(path: str) -> tuple[str, str] | None:
    """(user, folder name) of a path in a per-user config or state folder: `~/.X/…`, `~/.config/X/…`,
    `~/.local/share/X/…`, `~/.local/state/X/…`, and an editor extension's own storage
    (`…/User/globalStorage/<publisher.name>/…`, under any editor's folder)."""
    user = home_of_path(path)
    if user is None:
        return None
    segs = path.split("/")[2 if user == "root" else 3 :]
    if "globalStorage" in segs[:-2]:
        return user, segs[segs.index("globalStorage") + 1].lower()
    if len(segs) >= 3 and segs[0] == ".config":
        return user, segs[1].lower()
    if len(segs) >= 4 and segs[0] == ".local" and segs[1] in ("share", "state"):
        return user, segs[2].lower()
    if len(segs) >= 2 and segs[0].startswith(".") and segs[0] not in (".config", ".local", ".cache"):
        return user, segs[0][1:].lower()
    return None


def _names(program: ProgramEvidence) -> tuple[set[str], set[str]]:
    """The names a folder of the program may carry: its commands and package name, then its npm scope and its
    repository's name. An editor extension's are its id and the name in it (`saoudrizwan.claude-dev`,
    `claude-dev`): its commands are the editor's command ids, no folder's names."""
    if program.ecosystem == "vscode":
        ext_id = program.name.lower()
        return {ext_id, ext_id.split(".", 1)[-1]}, set()
    names = {c.lower() for c in program.commands}
    scope, _, base = program.name.lower().rpartition("/")
    names.add(base)
    # Its scope and its repository's name (`~/.factory` of Factory's `droid`) name it less surely than its own.
    others = {scope.lstrip("@")} if scope else set()
    others |= {program.project} if program.project else set()
    return {n for n in names if n}, others - names


def _rank(folder: str, names: tuple[set[str], set[str]]) -> int | None:
    """How well a folder name names the program: its command or package name (0), its scope (1), the start of
    one of them (2, 3: `~/.continue` of `@continuedev/cli`); None when it does not."""
    own, scope = names
    if folder in own or folder.rsplit(".", 1)[-1] in own:  # `~/.config/io.datasette.llm` is llm's
        return 0
    if folder in scope:
        return 1
    if len(folder) >= _MIN_PREFIX:
        if any(n.startswith(folder) for n in own):
            return 2
        if any(n.startswith(folder) for n in scope):
            return 3
    return None


def unknown_agents(
    programs: Iterable[ProgramEvidence],
    host_files: Iterable[ProgramHostsEvidence],
    sdks: Iterable[SdkKey],
    found: Found,
) -> list[AgentEntry]:
    hosts: dict[str, set[str]] = defaultdict(set)
    models: dict[str, set[str]] = defaultdict(set)
    host_locs: dict[str, list[Location]] = defaultdict(list)
    for h in host_files:
        hosts[h.package_path].update(h.hosts)
        models[h.package_path].update(h.models)
        host_locs[h.package_path].append(h.location)
    sdk_keys = list(sdks)
    by_folder = _by_folder(found)
    callers = []
    for program in sorted(programs, key=lambda p: (p.name, p.install_path)):
        evidence, bundled = _calls_models(program, hosts, models, sdk_keys) if program.commands else ([], [])
        if evidence:
            callers.append((program, evidence, bundled))
    # A folder belongs to the programs that name it best (`~/.vibe`: Mistral Vibe's command, not vibe-kit's scope).
    ranks = {p.install_path: {k: r for k in by_folder if (r := _rank(k[1], _names(p))) is not None}
             for p, _, _ in callers}  # fmt: skip
    best = {k: min(r[k] for r in ranks.values() if k in r) for k in by_folder if any(k in r for r in ranks.values())}
    entries = []
    for program, evidence, bundled in callers:
        folders = sorted(k for k, r in ranks[program.install_path].items() if r == best[k])
        if not (program.tool or folders):
            continue
        if program.tool:
            evidence.append(f"installed in {program.editor}'s extensions" if program.editor else "installed as a tool")
        evidence += [f"config folder of its name: {user} ~/{folder}" for user, folder in folders]
        configs = tuple(_config(user, [by_folder[(u, f)] for u, f in folders if u == user]) for user in
                        sorted({u for u, _ in folders}))  # fmt: skip
        paths = [program.install_path, *program.modules]
        locs = [program.location, *sorted((loc for p in paths for loc in host_locs.get(p, ())), key=_loc_key)[:5]]
        entries.append(
            AgentEntry(
                program.name, program.name, program.version, program.ecosystem, program.install_path,
                program.entry_points, tuple(bundled), (), configs, tuple(sorted(set(locs), key=_loc_key)),
                catalog="unknown", editor=program.editor, evidence=tuple(evidence[:_MAX_EVIDENCE]),
            )  # fmt: skip
        )
    return entries


def _calls_models(
    program: ProgramEvidence, hosts: dict[str, set[str]], models: dict[str, set[str]], sdk_keys: list[SdkKey]
) -> tuple[list[str], list[BundledSdk]]:
    """Why the program calls models (declared or installed SDKs, hosts in its own code), and the SDKs it carries."""
    evidence = [f"declares LLM SDK {name}" for name in program.sdks]
    bundled: dict[tuple[str, str, str | None], None] = {}
    # A tool's own venv holds what it depends on; a user site is shared: an SDK there is no program's own.
    own_venv = program.ecosystem == "pypi" and program.tool and bool(python_tool_site(program.environment))
    for eco, name, version, installed, env in sorted(sdk_keys, key=lambda k: (k[0], k[1], k[2] or "")):
        if not installed or env is None or eco != program.ecosystem:
            continue
        inside = env.startswith(program.install_path + "/") or (own_venv and env == program.environment)
        if inside or (env == program.environment and name in program.sdks):
            bundled[(eco, name, version)] = None
    carried = sorted({name for _, name, _ in bundled} - set(program.sdks))
    evidence += [f"carries LLM SDK {name}" for name in carried[:3]]
    own = hosts.get(program.install_path, set()).union(*(hosts.get(m, set()) for m in program.modules))
    if own:
        evidence.append("provider hosts in its own code: " + ", ".join(sorted(own)[:4]))
    named = models.get(program.install_path, set()).union(*(models.get(m, set()) for m in program.modules))
    if named and not own:
        evidence.append("model ids in its own code: " + ", ".join(sorted(named)[:4]))
    return evidence, [BundledSdk(e, n, v) for e, n, v in bundled]


@dataclass
class _Folder:
    models: dict[str, str | None]  # wired model -> its route
    mcp: set[str]
    credentials: set[str]
    files: set[str]


def _by_folder(found: Found) -> dict[tuple[str, str], _Folder]:
    folders: dict[tuple[str, str], _Folder] = {}

    def at(path: str) -> _Folder | None:
        key = folder_of(path)
        if key is None:
            return None
        return folders.setdefault(key, _Folder({}, set(), set(), set()))

    for m in found.models:
        for loc in m.locations if m.wired else ():
            if (f := at(loc.path)) is not None and loc.context.value in ("config", "env"):
                f.models.setdefault(m.name, found.routes_at.get((m.name, loc.path)) or m.served_via)
                f.files.add(loc.path)
    for s in found.mcp_servers:
        if (f := at(s.config)) is not None:
            f.mcp.add(s.name)
            f.files.add(s.config)
    for c in found.credentials:
        for cl in c.locations:
            if (f := at(cl.location.path)) is not None:
                f.credentials.add(c.sha256)
                f.files.add(cl.location.path)
    return folders


def _config(user: str, folders: list[_Folder]) -> AgentConfig:
    models: dict[str, str | None] = {}
    for f in folders:
        for name, via in sorted(f.models.items()):
            models.setdefault(name, via)
    routes = [via for via in models.values() if via]
    return AgentConfig(
        user,
        tuple(models),
        routes[0] if routes else None,
        None,
        tuple(sorted({s for f in folders for s in f.mcp})),
        tuple(sorted({c for f in folders for c in f.credentials})),
        tuple(sorted({p for f in folders for p in f.files})),
    )


def _loc_key(loc: Location) -> tuple[str, int]:
    return loc.path, loc.line or 0
