"""Per-product scoring of agent products against a truth whose `[[agents]]` name each product's other names
(package, command, display name), its install path and, per user, the models it selects (with route and the
model an alias names) and its MCP servers (stdlib only).

An inventory may report a product the catalog does not know under its package name, its command or its
display name: an entry matches a truth product when its install path is the product's, or when its name or
product is one of the product's names. A configured model is found when the product's agent entry lists it for
that user with a route of the truth's, or when `models` has it wired, at one of the product's config files,
served via such a route: an inventory may give the route on the model or on the config. An MCP server is found
when the agent entry lists it for the user, or `mcp_servers` has it for that user from that config file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EDITOR_WORDS = {"vscode": {"vscode", "code", "visual studio code"}, "cursor": {"cursor"},
                "vscode-server": {"vscode-server", "code-server", "vscode server", "remote"}}


def _low(x: Any) -> str:
    return str(x or "").lower()


def find_entry(t: dict[str, Any], agents: list[dict[str, Any]]) -> dict[str, Any] | None:
    names = {_low(n) for n in t.get("names", [t["name"]])} | {_low(t["name"])}
    by_path = [a for a in agents if t.get("install_path") and a.get("install_path") == t["install_path"]]
    by_name = [a for a in agents if _low(a.get("name")) in names or _low(a.get("product")) in names]
    if by_path:
        return by_path[0]
    # a configured-only entry (no install path) counts when nothing else matches
    return by_name[0] if by_name else None


def _model_keys(m: dict[str, Any]) -> set[str]:
    return {k for k in (m.get("name"), m.get("canonical"), m.get("base_model")) if k}


@dataclass
class ProductScore:
    name: str
    entry: bool = False
    entry_label: str = ""
    editor: bool | None = None
    models: list[tuple[str, bool, str]] = field(default_factory=list)      # (label, found with route, detail)
    aliases: list[tuple[str, bool, str]] = field(default_factory=list)     # (alias, base_model right, detail)
    mcp: list[tuple[str, bool, str]] = field(default_factory=list)         # (label, found, transport detail)
    transports: list[tuple[str, bool, str]] = field(default_factory=list)


def _config_of(entry: dict[str, Any] | None, user: str) -> dict[str, Any] | None:
    for cf in (entry or {}).get("configs", []) or []:
        if cf.get("user") == user:
            return cf
    return None


def _model_found(m: str, base: str, routes: list[str], files: list[str], cf: dict[str, Any] | None,
                 wired: list[dict[str, Any]]) -> tuple[bool, str]:
    spellings = {m, base} - {""}
    listed = cf is not None and bool(spellings & set(cf.get("models", []) or []))
    if cf is not None and listed and (not routes or cf.get("served_via") in routes):
        return True, f"agent config via {cf.get('served_via')}"
    hits = [w for w in wired if spellings & _model_keys(w)
            and (not files or {loc.get("path") for loc in w.get("locations", []) or []} & set(files))]
    good = [w for w in hits if not routes or w.get("served_via") in routes]
    if good:
        return True, f"models via {good[0].get('served_via')}"
    got = sorted({str(w.get("served_via")) for w in hits})
    where = f"agent config {cf.get('models')} via {cf.get('served_via')}" if cf else "no agent config"
    return False, f"{where}; models at its files via {', '.join(got) or 'none'}"


def score_product(t: dict[str, Any], inv: dict[str, Any]) -> ProductScore:
    agents = inv.get("agents", []) or []
    wired = [m for m in inv.get("models", []) if m.get("wired")]
    servers = inv.get("mcp_servers", []) or []
    entry = find_entry(t, agents)
    ps = ProductScore(t["name"])
    ps.entry = entry is not None and entry.get("version") == t["version"]
    ps.entry_label = (f"{t['name']} {t['version']}" + ("" if entry is None else
                      f" (reported {entry.get('name')} {entry.get('version')})") if not ps.entry else "")
    if t.get("editor") and entry is not None:
        ps.editor = _low(entry.get("editor")) in EDITOR_WORDS.get(t["editor"], {t["editor"]})
    for c in t.get("configs", []):
        cf = _config_of(entry, c["user"])
        for m in c.get("models", []):
            base = c.get("base_models", {}).get(m, "")
            routes = c.get("model_routes", {}).get(m, c.get("route", []))
            ok, detail = _model_found(m, base, routes, c.get("files", []), cf, wired)
            ps.models.append((f"{c['user']}: {m} via {'|'.join(routes) or 'any'}", ok, detail))
            if base:
                named = [w for w in wired if w.get("name") == m]
                right = any(w.get("base_model") == base for w in named)
                ps.aliases.append((f"{c['user']}: {m} -> {base}", right,
                                   f"reported base_model {sorted({str(w.get('base_model')) for w in named})}"))
        for s in c.get("mcp_servers", []):
            truth_srv = [x for x in t.get("_mcp", []) if x["name"] == s and x["user"] == c["user"]
                         and x["path"] in c.get("files", [x["path"]])]
            paths = {x["path"] for x in truth_srv}
            hits = [x for x in servers if x.get("name") == s and x.get("user") == c["user"]
                    and (not paths or x.get("config") in paths)]
            ok = bool(hits) or (cf is not None and s in (cf.get("mcp_servers") or []))
            ps.mcp.append((f"{c['user']}: {s}", ok, ""))
            for x in truth_srv:
                got = sorted({str(h.get("transport")) for h in hits})
                ps.transports.append((f"{c['user']}: {s} ({x['transport']})", x["transport"] in got,
                                      f"reported {', '.join(got) or 'none'}"))
    return ps


def score_all(truth: dict[str, Any], inv: dict[str, Any]) -> list[ProductScore]:
    servers_by_product: dict[str, list[dict[str, Any]]] = {}
    for s in truth.get("mcp_servers", []):
        servers_by_product.setdefault(s.get("product", ""), []).append(s)
    out = []
    for t in truth.get("agents", []):
        # an MCP truth row names the first product of its file; the others reading it share its path
        t = {**t, "_mcp": [s for rows in servers_by_product.values() for s in rows]}
        out.append(score_product(t, inv))
    return out


def unmatched_reported(truth: dict[str, Any], inv: dict[str, Any]) -> list[dict[str, Any]]:
    """Reported agent entries that match no truth product."""
    matched = {id(e) for t in truth.get("agents", []) if (e := find_entry(t, inv.get("agents", []) or []))}
    return [a for a in inv.get("agents", []) or [] if id(a) not in matched]
