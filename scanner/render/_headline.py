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

from scanner.findings.modelkey import is_alias, keyer
from scanner.kinds import KINDS, Inventory
from scanner.kinds.models import ModelEntry
from scanner.kinds.sdks import SdkEntry
from scanner.model import MAX_LOCATIONS, Context, Location, Severity, SkipReason
from scanner.policy.ignore import id_matches
from scanner.render._incomplete import incomplete_lines
from scanner.render._view import ReportOptions, filesystem_inspected, where
from scanner.vocab import SwitchState

_NOT_WIRING = (Context.PACKAGE, Context.DOCS, Context.TEST, Context.COMMENT)


@dataclass(frozen=True)
class Line:
    depth: int  # 0 a heading, 1 an item, 2 an item under it
    text: str  # the whole line: `head` and its items
    head: str = ""  # when the line is a list: what comes before its items ("direct: ")
    items: tuple[str, ...] = ()  # a line cut to fit says how many of these it left out

    @staticmethod
    def listing(depth: int, head: str, items: Sequence[str], tail: str = "") -> Line:
        return Line(depth, head + ", ".join(items) + tail, head, tuple(items))


def _agents(inv: Inventory) -> list[tuple[str, tuple[str, ...]]]:
    """(product, vendors it uses) from the `agents` section when the inventory has one."""
    vendor_of = {m.name: m.vendor for m in inv.models}
    out = []
    for a in inv.agents:
        # The vendors a product uses are those of the models its users' configs select.
        vendors = sorted({v for c in a.configs for model in c.models if (v := vendor_of.get(model))})
        out.append((a.product or a.name, tuple(vendors)))
    return out


def _route_line(route: str, models: Sequence[ModelEntry], model_key: Callable[[ModelEntry], str]) -> Line:
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
    return Line.listing(1, f"{route}: ", parts)


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
        lines.extend(_route_line(route, routes[route], model_key) for route in sorted(routes))
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
    return [Line.listing(0, "kill switches: ", [f"{n} {t}" for n, t in eff])]


def credential_lines(inv: Inventory) -> list[Line]:
    if not inv.credentials:
        return [Line(0, "credentials: none found")]
    per = Counter(c.vendor or "unknown vendor" for c in inv.credentials)
    return [Line(0, f"credentials: {len(inv.credentials)} (" +
                 ", ".join(f"{v} {n}" for v, n in sorted(per.items())) + ", redacted below)")]


# Skips that hide what a file or directory holds (not a FIFO, a device, a broken link): when any is there, the
# answer above may lack what that part wires, and the headline says so instead of leaving it to the Skipped table.
_HIDING = frozenset({SkipReason.PERMISSION_DENIED, SkipReason.READ_ERROR, SkipReason.CHANGED,
                     SkipReason.DETECTOR_ERROR, SkipReason.EXCLUDED})
_GAPS_SHOWN = 3


def gap_lines(inv: Inventory) -> list[Line]:
    """What was not read although it may hold wiring: unreadable paths, other filesystems, parts left out,
    inventory caps."""
    gaps = [s for s in inv.skipped if s.reason in _HIDING or s.detail == "other filesystem"
            or (s.reason is SkipReason.CAP_REACHED and s.path == "(inventory)" and "session" in s.detail)]
    if not gaps:
        return []
    shown = [f"{g.path} ({g.detail if g.path == '(inventory)' or g.detail == 'other filesystem' else g.reason.value})"
             for g in gaps[:_GAPS_SHOWN]]
    more = f", +{len(gaps) - _GAPS_SHOWN} more" if len(gaps) > _GAPS_SHOWN else ""
    return [Line(0, f"not read: {len(gaps)} part(s) that may hold wiring: {', '.join(shown)}{more}; what they "
                    "hold is missing above (see Skipped)")]


def headline(inv: Inventory) -> list[Line]:
    gaps = [Line(depth, text) for depth, text in incomplete_lines(inv)]  # an image not read whole says so first
    kinds = [Line(0, text) for k in KINDS if k.headline is not None and (text := k.headline(k.entries(inv) or ()))]
    return (gaps + wiring_lines(inv) + kinds + session_lines(inv) + switch_lines(inv) + credential_lines(inv)
            + gap_lines(inv))


def _kind(fid: str) -> str:
    return fid.split(":", 1)[0]


@dataclass(frozen=True)
class FindingRow:
    severity: Severity
    title: str
    where: str
    ids: tuple[str, ...]  # the findings the row stands for: one, or sessions folded into one row
    ignored: str | None = None  # the reason, when every finding behind the row is accepted by the ignore file
    label: str = ""  # the id, or a glob `--ignore` accepts for the folded ones


def _ignored(ids: Iterable[str], opts: ReportOptions) -> str | None:
    reasons = [opts.ignored.get(i) for i in ids]
    return "; ".join(sorted({r for r in reasons if r})) if reasons and all(reasons) else None


def finding_rows(inv: Inventory, opts: ReportOptions) -> list[FindingRow]:
    """One row per finding, with its id, as JSON and SARIF have them; findings about sessions that say the same
    thing of different sessions are one row with their count and a glob of their ids. Most severe first; accepted
    ones last, with their reason."""
    rows = [FindingRow(f.severity, f.title, where(f.locations, 1, f.locations_cut), (f.id,), _ignored((f.id,), opts),
                       f.id) for f in inv.findings]
    rows = _fold_sessions(rows, {x.session_id for x in inv.sessions}, [f.id for f in inv.findings])
    rows.sort(key=lambda r: (r.ignored is not None, -r.severity.rank))
    return rows


def _fold_sessions(rows: list[FindingRow], session_ids: set[str], all_ids: Sequence[str]) -> list[FindingRow]:
    """Findings about sessions that say the same thing of different sessions become one row with the count."""
    groups: dict[tuple[str, str, str | None, Severity], list[FindingRow]] = defaultdict(list)
    out: list[FindingRow] = []
    for r in rows:
        sid = r.ids[0].split(":", 1)[-1] if r.ids[0].startswith("session-") else ""
        if sid in session_ids and sid in r.title:
            shape = re.sub(r"\d+", "#", r.title.replace(sid, "{}"))
            groups[(_kind(r.ids[0]), shape, r.ignored, r.severity)].append(r)
        else:
            out.append(r)
    for (kind, _shape, ignored, sev), members in groups.items():
        if len(members) == 1:
            out.append(members[0])
            continue
        ids = tuple(i for m in members for i in m.ids)
        title = f"{len(members)} sessions like this one: " + members[0].title
        out.append(FindingRow(sev, title, members[0].where, ids, ignored, id_glob(kind, ids, all_ids)))
    return out


def id_glob(kind: str, ids: Sequence[str], all_ids: Sequence[str]) -> str:
    """A pattern `--ignore` accepts for exactly `ids`: `kind:*` when no other finding has that kind, else the
    first id and how many more."""
    glob = f"{kind}:*"
    if {i for i in all_ids if id_matches(glob, i)} == set(ids):
        return glob
    return f"{ids[0]} (+{len(ids) - 1} more ids)"


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
    if loc.context is Context.CONVERSATION:
        return _SESSION_LOGS
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


_CONTEXT_TEXT = {
    "package": "its own model list",
    "docs": "docs",
    "test": "tests",
    "comment": "comments",
    "conversation": "their conversations",
}
# Every session log's conversation is one source: a lived-in machine's ids quoted in prompts and tool output are
# one line, however many folders the logs sit in.
_SESSION_LOGS = "session logs"


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


def not_wiring_lines(inv: Inventory, most: int | None = None) -> list[Line]:
    """The mentions per source, the first `most` of them when given, and how many more."""
    ms = not_wiring(inv)
    if not ms:
        return []
    total = sum(1 for m in inv.models if not m.wired)
    out = [Line(0, f"not wiring: {total:,} model id(s) only mentioned")]
    shown = ms if most is None else ms[:most]
    out += [Line(1, f"{m.source}: {m.models:,} model id(s) in {m.context}; not wiring") for m in shown]
    if len(shown) < len(ms):
        out.append(Line(1, f"+{len(ms) - len(shown):,} more source(s) with {sum(m.models for m in ms[len(shown):]):,} "
                           "mention(s) (--all lists every id)"))
    cut = [m for m in inv.models if not m.wired and m.locations_cut]
    if cut:
        more = sum(m.locations_cut for m in cut)
        out.append(Line(1, f"+{more:,} more place(s) of {len(cut):,} model id(s), past the {MAX_LOCATIONS} an id "
                           "keeps: counted (locations_cut in JSON), not grouped above"))
    return out
