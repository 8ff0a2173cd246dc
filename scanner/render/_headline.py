"""The answer first: what every human format opens with, as plain data.

Per vendor, the routes and the wired models under each (aliases as `alias → model`), the agent products that use
them; the vendors sessions observed and the mismatches; kill switches and their effective state; credentials per
vendor. Then the findings, one per model however it is spelled, and the mentions that are not wiring collapsed into
counts per package or source.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from scanner.inventory.sections import unprefixed
from scanner.model import Context, Finding, Inventory, Location, ModelEntry, SdkEntry, Severity, SwitchState
from scanner.render._view import ReportOptions, filesystem_inspected, where

_MODEL_KINDS = ("external-model-wired", "model-deprecated", "model-retired")
_NOT_WIRING = (Context.PACKAGE, Context.DOCS, Context.TEST, Context.COMMENT)


@dataclass(frozen=True)
class Line:
    depth: int  # 0 a heading, 1 an item, 2 an item under it
    text: str


@dataclass(frozen=True)
class FindingRow:
    severity: Severity
    title: str
    where: str
    ids: tuple[str, ...]
    ignored: str | None = None  # the reason, when every finding behind the row is accepted by the ignore file


def model_key(m: ModelEntry) -> str:
    """The one name a model goes by whatever its spelling (`claude-opus-4-1`, `anthropic/claude-opus-4-1`,
    `claude-opus-4-1@20250805`): the model a hosted form or an alias names, else the catalog's canonical id."""
    if m.base_model and (m.canonical is None or m.canonical.startswith(m.base_model)):
        return m.base_model
    return m.canonical or m.name


_DATED = re.compile(r"-(?:20\d{6})$")


def keyer(models: Iterable[ModelEntry]) -> Callable[[ModelEntry], str]:
    """`model_key`, with a dated snapshot (`claude-opus-4-1-20250805`) folded into its undated id when that id is
    among the models too: one model, however it is spelled or pinned."""
    keys = {model_key(m) for m in models}

    def key(m: ModelEntry) -> str:
        k = model_key(m)
        undated = _DATED.sub("", k)
        return undated if undated != k and undated in keys else k

    return key


def is_alias(m: ModelEntry) -> bool:
    """A name of its own pointing at a model (`hx-prod → gpt-5.1`), not a spelling of that model (a catalogued one,
    or a provider's path before it: `qwen/qwen3.6-27b:thinking`)."""
    base = m.base_model
    if not base or m.canonical is not None or m.name == base:
        return False
    return unprefixed(m.name, base) is None


def _agents(inv: Inventory) -> list[tuple[str, tuple[str, ...]]]:
    """(product, vendors it uses) from the `agents` section when the inventory has one."""
    vendor_of = {m.name: m.vendor for m in inv.models}
    out = []
    for a in inv.agents:
        # The vendors a product uses are those of the models its users' configs select.
        vendors = sorted({v for c in a.configs for model in c.models if (v := vendor_of.get(model))})
        out.append((a.product or a.name, tuple(vendors)))
    return out


def _route_text(route: str, models: Sequence[ModelEntry], model_key: Callable[[ModelEntry], str]) -> str:
    by_key: dict[str, list[ModelEntry]] = defaultdict(list)
    for m in models:
        by_key[model_key(m)].append(m)
    parts = []
    for key in sorted(by_key):
        entries = by_key[key]
        aliases = sorted({m.name for m in entries if is_alias(m)})
        spellings = sorted({m.name for m in entries if not is_alias(m) and m.name != key})
        text = key + (f" (also {', '.join(spellings)})" if spellings else "")
        if any(m.lifecycle in ("deprecated", "retired") for m in entries):
            text += f" [{next(m.lifecycle for m in entries if m.lifecycle in ('deprecated', 'retired'))}]"
        parts.append(text)
        parts.extend(f"{a} → {key}" for a in aliases)
    return f"{route}: " + ", ".join(parts)


def wiring_lines(inv: Inventory) -> list[Line]:
    vendors: dict[str, dict[str, list[ModelEntry]]] = defaultdict(lambda: defaultdict(list))
    for m in inv.models:
        if m.wired:
            vendors[m.vendor or "unknown vendor"][m.served_via or "unstated route"].append(m)
    agents = _agents(inv)
    model_key = keyer(m for m in inv.models if m.wired)
    lines = []
    for vendor in sorted(vendors, key=lambda v: (v == "unknown vendor", v)):
        routes = vendors[vendor]
        count = len({model_key(m) for ms in routes.values() for m in ms})
        users = sorted({name for name, vs in agents if vendor in vs})
        head = f"{vendor}: {count} model(s) via {', '.join(sorted(routes))}"
        lines.append(Line(0, head + (f"; used by {', '.join(users)}" if users else "")))
        lines.extend(Line(1, _route_text(route, routes[route], model_key)) for route in sorted(routes))
    if not lines:
        lines.append(Line(0, "no model is wired"))
    unplaced = sorted({name for name, vs in agents if not (set(vs) & set(vendors))})
    if unplaced:
        lines.append(Line(0, f"agent products: {', '.join(unplaced)}"))
    return lines


def session_lines(inv: Inventory) -> list[Line]:
    if not filesystem_inspected(inv):
        return [Line(0, "sessions: not inspected (the filesystem was not walked)")]
    if not inv.sessions:
        return [Line(0, "sessions: none found")]
    observed: Counter[str] = Counter()
    for s in inv.sessions:
        names = {p.vendor + (f"/{p.served_via}" if p.served_via else "") for p in s.providers} or {"unknown vendor"}
        observed.update(names)
    shown = ", ".join(f"{v} {n}" for v, n in sorted(observed.items(), key=lambda kv: (-kv[1], kv[0])))
    lines = [Line(0, f"sessions: {len(inv.sessions)} ({shown})")]
    never = sorted(r.alias for r in inv.routes if not r.observed_vendor)
    if never:
        lines.append(Line(1, f"{len(never)} configured alias(es) never observed in a session"))
    mismatches: dict[tuple[str, str], list[str]] = defaultdict(list)
    for s in inv.sessions:
        if s.mismatched_labels:
            seen = ", ".join(sorted({p.vendor + (f"/{p.served_via}" if p.served_via else "") for p in s.providers}))
            mismatches[(", ".join(s.mismatched_labels), seen)].append(s.session_id)
    for (labels, seen), ids in sorted(mismatches.items()):
        who = ids[0] if len(ids) == 1 else f"{len(ids)} sessions (first {ids[0]})"
        lines.append(Line(1, f"mismatch: {who} labelled {labels} but served by {seen}"))
    return lines


def _effective(inv: Inventory) -> list[tuple[str, str]]:
    """One state per switch: a value set in the environment wins over the config file, a known one over unknown."""
    rank = {Context.ENV: 0, Context.CONFIG: 1}
    best: dict[str, tuple[tuple[int, int], str]] = {}
    for k in inv.kill_switches:
        order = (k.state is SwitchState.UNKNOWN, min((rank.get(loc.context, 2) for loc in k.locations), default=2))
        text = k.state.value + (f" ({k.value})" if k.value is not None else "")
        if k.name not in best or order < best[k.name][0]:
            best[k.name] = (order, text)
    return [(name, text) for name, (_, text) in sorted(best.items())]


def switch_lines(inv: Inventory) -> list[Line]:
    eff = _effective(inv)
    if not eff:
        return [Line(0, "kill switches: none found")]
    return [Line(0, "kill switches: " + ", ".join(f"{n} {t}" for n, t in eff))]


def credential_lines(inv: Inventory) -> list[Line]:
    if not inv.credentials:
        return [Line(0, "credentials: none found")]
    per = Counter(c.vendor or "unknown vendor" for c in inv.credentials)
    return [Line(0, f"credentials: {len(inv.credentials)} (" +
                 ", ".join(f"{v} {n}" for v, n in sorted(per.items())) + ", redacted below)")]


def headline(inv: Inventory) -> list[Line]:
    return wiring_lines(inv) + session_lines(inv) + switch_lines(inv) + credential_lines(inv)


def _kind(fid: str) -> str:
    return fid.split(":", 1)[0]


def _ignored(ids: Iterable[str], opts: ReportOptions) -> str | None:
    reasons = [opts.ignored.get(i) for i in ids]
    return "; ".join(sorted({r for r in reasons if r})) if reasons and all(reasons) else None


def finding_rows(inv: Inventory, opts: ReportOptions) -> list[FindingRow]:
    """Findings for people: the ones about models merged into one per model (spellings, aliases and routes named),
    the others as they are. Most severe first; accepted ones last, with their reason."""
    by_name: dict[str, list[ModelEntry]] = defaultdict(list)
    for m in inv.models:
        by_name[m.name].append(m)
    model_key = keyer(m for m in inv.models if m.wired)
    groups: dict[str, list[Finding]] = defaultdict(list)
    rows: list[FindingRow] = []
    for f in inv.findings:
        kind = _kind(f.id)
        if kind == "external-model-wired":
            parts = f.id.split(":", 2)
            vendor, via = (parts[1], parts[2]) if len(parts) == 3 else ("", "")
            for m in inv.models:
                if m.wired and m.vendor == vendor and (m.served_via or "unstated route") == via:
                    groups[model_key(m)].append(f)
        elif kind in _MODEL_KINDS[1:] and f.id.split(":", 1)[-1] in by_name:
            for m in by_name[f.id.split(":", 1)[-1]]:
                groups[model_key(m)].append(f)
        else:
            rows.append(FindingRow(f.severity, f.title, where(f.locations, 1), (f.id,), _ignored((f.id,), opts)))
    for key, fs in groups.items():
        entries = [m for m in inv.models if m.wired and model_key(m) == key]
        if not entries:
            continue
        vendor = next((m.vendor for m in entries if m.vendor), "?")
        routes = sorted({m.served_via or "unstated route" for m in entries})
        spellings = sorted({m.name for m in entries if not is_alias(m)})
        aliases = sorted({m.name for m in entries if is_alias(m)})
        life = sorted({f.title.split(" but ", 1)[0].split(" is ", 1)[1] for f in fs
                       if _kind(f.id) in _MODEL_KINDS[1:] and " is " in f.title})
        title = f"{key} ({vendor}) wired via {', '.join(routes)}"
        if spellings and spellings != [key]:
            title += f"; spelled {', '.join(spellings)}"
        if aliases:
            title += f"; aliases {', '.join(aliases)}"
        if life:
            title += f"; {', '.join(life)}"
        ids = tuple(sorted({f.id for f in fs}))
        locs: list[Location] = [loc for m in entries for loc in m.locations]
        top = max((f.severity for f in fs), key=lambda s: s.rank)
        rows.append(FindingRow(top, title, where(locs, 1), ids, _ignored(ids, opts)))
    rows = _fold_sessions(rows, {x.session_id for x in inv.sessions})
    rows.sort(key=lambda r: (r.ignored is not None, -r.severity.rank))
    return rows


def _fold_sessions(rows: list[FindingRow], session_ids: set[str]) -> list[FindingRow]:
    """Findings about sessions that say the same thing of different sessions become one row with the count."""
    groups: dict[tuple[str, str, str | None, Severity], list[FindingRow]] = defaultdict(list)
    out: list[FindingRow] = []
    for r in rows:
        sid = r.ids[0].split(":", 1)[-1] if len(r.ids) == 1 and r.ids[0].startswith("session-") else ""
        if sid in session_ids and sid in r.title:
            shape = re.sub(r"\d+", "#", r.title.replace(sid, "{}"))
            groups[(_kind(r.ids[0]), shape, r.ignored, r.severity)].append(r)
        else:
            out.append(r)
    for (_, _shape, ignored, sev), members in groups.items():
        if len(members) == 1:
            out.append(members[0])
            continue
        head = members[0].title
        title = f"{len(members)} sessions like this one: " + head
        out.append(FindingRow(sev, title, members[0].where, tuple(i for m in members for i in m.ids), ignored))
    return out


def _sdk_for(path: str, sdks: Sequence[SdkEntry]) -> SdkEntry | None:
    """The installed SDK whose package directory holds `path` (`…/site-packages/anthropic/_constants.py`)."""
    for s in sdks:
        env = (s.environment or "").rstrip("/")
        if not (s.installed and env and path.startswith(env + "/")):
            continue
        rest = path[len(env) + 1:].lower()
        name = s.name.lower()
        top = rest.split("/", 1)[0].replace("-", "_")
        if rest.startswith(name + "/") or top == name.replace("-", "_") or top.startswith(name.replace("-", "_") + "_"):
            return s
    return None


def _source_of(loc: Location, sdks: Sequence[SdkEntry]) -> str:
    if loc.context is Context.PACKAGE:
        s = _sdk_for(loc.path, sdks)
        if s is not None:
            place = (s.environment or "").rstrip("/").rsplit("/", 1)[-1]
            return f"{s.name} {s.version} ({place})" if s.version else f"{s.name} ({place})"
        for marker in ("/site-packages/", "/dist-packages/", "/node_modules/"):
            if marker in loc.path:
                head, _, rest = loc.path.partition(marker)
                top = "/".join(rest.split("/")[:2]) if rest.startswith("@") else rest.split("/", 1)[0]
                return f"{top} ({marker.strip('/')})"
    parent = loc.path.rsplit("/", 1)[0] or "/"
    return f"{parent} ({loc.context.value})"


@dataclass(frozen=True)
class Mention:
    source: str
    models: int
    context: str
    paths: tuple[str, ...] = ()  # the files the ids are in, sorted
    names: tuple[str, ...] = ()  # the ids, sorted


_CONTEXT_TEXT = {"package": "its own model list", "docs": "docs", "test": "tests", "comment": "comments"}


def not_wiring(inv: Inventory) -> list[Mention]:
    """Model ids seen only where they are not wiring (an SDK's own price list, docs, tests, comments): counted per
    package or directory, so thousands of ids in an installed SDK are one line."""
    per: dict[str, set[str]] = defaultdict(set)
    files: dict[str, set[str]] = defaultdict(set)
    ctx: dict[str, str] = {}
    # Thousands of ids share a few files: where a file belongs is worked out once per file, not once per id.
    source_of: dict[tuple[str, Context], str] = {}
    for m in inv.models:
        if m.wired:
            continue
        for loc in m.locations:
            src = source_of.get((loc.path, loc.context))
            if src is None:
                src = source_of[(loc.path, loc.context)] = _source_of(loc, inv.sdks)
            per[src].add(m.name)
            files[src].add(loc.path)
            ctx[src] = _CONTEXT_TEXT.get(loc.context.value, loc.context.value)
    return sorted((Mention(src, len(names), ctx[src], tuple(sorted(files[src])), tuple(sorted(names)))
                   for src, names in per.items()), key=lambda x: (-x.models, x.source))


def not_wiring_lines(inv: Inventory) -> list[Line]:
    ms = not_wiring(inv)
    if not ms:
        return []
    total = sum(1 for m in inv.models if not m.wired)
    out = [Line(0, f"not wiring: {total:,} model id(s) only mentioned")]
    out += [Line(1, f"{m.source}: {m.models:,} model id(s) in {m.context}; not wiring") for m in ms]
    return out
