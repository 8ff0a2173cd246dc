"""What a parsed catalog file's values must satisfy beyond their keys: known vocabularies, unique ids, sane
patterns and globs (the checks `schema.parse_catalog` runs on every file it parses)."""

from __future__ import annotations

import re

from scanner.catalog.globs import glob_problem
from scanner.catalog.specs import (
    _DATE,
    AGENT_CONFIG_FORMATS,
    AGENT_SETTINGS_FORMATS,
    CODE_PATH_KINDS,
    FINGERPRINT_DECODES,
    FINGERPRINT_ON,
    FINGERPRINT_ROLES,
    LIFECYCLES,
    PROCESS_ROLES,
    ROLES,
    SIGNATURE_KINDS,
    CatalogError,
    CatalogFile,
)


def check_values(cat: CatalogFile) -> None:
    """Every value a catalog file sets is one its schema allows; the first that is not raises CatalogError."""
    where = cat.origin
    for check in (_models, _fingerprints, _vocabularies, _agent_configs, _agents):
        check(cat, where)


def _models(cat: CatalogFile, where: str) -> None:
    """Lifecycles and dates of the models."""
    for m in cat.models:
        if m.lifecycle not in LIFECYCLES:
            raise CatalogError(f"{where}: model {m.id}: lifecycle {m.lifecycle!r} not in {LIFECYCLES}")
        for d in (m.released, m.deprecated, m.retires):
            if d is not None and not _DATE.match(str(d)):
                raise CatalogError(f"{where}: model {m.id}: date {d!r} is not YYYY-MM-DD")


def _fingerprints(cat: CatalogFile, where: str) -> None:
    """Fingerprint ids once each, what they read and where."""
    seen: set[str] = set()
    for fp in cat.fingerprints:
        label = f"{where}: fingerprint {fp.id}"
        if fp.id in seen:
            raise CatalogError(f"{label}: id defined twice")
        seen.add(fp.id)
        if fp.on not in FINGERPRINT_ON:
            raise CatalogError(f"{label}: on {fp.on!r} not in {FINGERPRINT_ON}")
        if fp.decode is not None and fp.decode not in FINGERPRINT_DECODES:
            raise CatalogError(f"{label}: decode {fp.decode!r} not in {FINGERPRINT_DECODES}")
        if fp.on != "key" and not fp.fields and not fp.roles:
            raise CatalogError(f'{label}: neither roles nor fields (use roles = ["any"] for any value)')
        unknown_roles = sorted(set(fp.roles) - set(FINGERPRINT_ROLES))
        if unknown_roles:
            raise CatalogError(f"{label}: roles {unknown_roles} not in {FINGERPRINT_ROLES}")
        if any("/" in name for name in fp.fields):
            raise CatalogError(f"{label}: fields name keys, not paths (a tool call's id is the role tool-call)")


def _vocabularies(cat: CatalogFile, where: str) -> None:
    """Processes, code paths, source signatures and environment variables: a known role or kind."""
    for p in cat.processes:
        if p.role not in PROCESS_ROLES:
            raise CatalogError(f"{where}: process {p.pattern}: role {p.role!r} not in {PROCESS_ROLES}")
    for c in cat.code_paths:
        if c.kind not in CODE_PATH_KINDS:
            raise CatalogError(f"{where}: code path {c.pattern}: kind {c.kind!r} not in {CODE_PATH_KINDS}")
    for sig in cat.source_signatures:
        if sig.kind not in SIGNATURE_KINDS:
            raise CatalogError(f"{where}: source signature {sig.name}: kind {sig.kind!r} not in {SIGNATURE_KINDS}")
    for e in cat.env_vars:
        if e.role not in ROLES:
            raise CatalogError(f"{where}: env var {e.name}: role {e.role!r} not in {ROLES}")


def _agent_configs(cat: CatalogFile, where: str) -> None:
    """Agent config files: a known format, named containers and a safe path glob."""
    for a in cat.agent_configs:
        label = f"{where}: agent config {a.tool} {a.path}"
        if a.format not in AGENT_CONFIG_FORMATS:
            raise CatalogError(f"{label}: format {a.format!r} not in {AGENT_CONFIG_FORMATS}")
        if not a.containers or not all(c and "" not in c.split(".") for c in a.containers):
            raise CatalogError(f"{label}: containers must be non-empty key names (`a.b` for a nested key)")
        problem = glob_problem(a.path)
        if problem:
            raise CatalogError(f"{label}: {problem}")


def _agents(cat: CatalogFile, where: str) -> None:
    """Agent products: a slug id once, something to recognise them by, and sound settings, ships and routes."""
    ids: set[str] = set()
    for product in cat.agents:
        label = f"{where}: agent {product.id}"
        if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", product.id):
            raise CatalogError(f"{label}: id must be a lowercase slug")
        if product.id in ids:
            raise CatalogError(f"{label}: id defined twice")
        ids.add(product.id)
        if not product.packages and not product.binaries and not product.settings:
            raise CatalogError(f"{label}: names no package, binary or settings file to recognise it by")
        for f in product.settings:
            if f.format not in AGENT_SETTINGS_FORMATS:
                raise CatalogError(f"{label}: settings {f.path}: format {f.format!r} not in {AGENT_SETTINGS_FORMATS}")
            problem = glob_problem(f.path)
            if problem:
                raise CatalogError(f"{label}: settings: {problem}")
            for key in (*f.model, *f.base_url, *f.mcp, *f.credentials, *f.route_keys):
                if not key or "" in key.split("."):
                    raise CatalogError(f"{label}: settings {f.path}: key path {key!r} has an empty segment")
        for glob in product.ships:
            problem = glob_problem(glob)
            if problem or glob.startswith(("/", "~/")):
                raise CatalogError(f"{label}: ships: {problem or f'{glob!r} must be relative to the package dir'}")
        for glob in product.native:
            problem = glob_problem(glob)
            if problem:
                raise CatalogError(f"{label}: native: {problem}")
        for route in product.routes:
            if not route.equals and route.prefix is None:
                raise CatalogError(f"{label}: route {route.key} -> {route.route}: needs `equals` or `prefix`")
