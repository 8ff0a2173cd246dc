"""What an agent product ships: the model ids its model-list files name (`agents[].ships`).

A structured list is read by its `ship_keys` (aider's `- name: …`); any other model-list file (a JS bundle, a
single executable read whole in windows) gives its whole quoted string literals that begin with a family id and
that the catalogs recognise, its string-table strings and, in an executable, its packed literal tables.
"""

from __future__ import annotations

import re

from scanner.catalog.matcher import PatternKind
from scanner.catalog.packed_ids import packed_tables
from scanner.catalog.specs import AgentProduct
from scanner.configs.product_settings import Keys
from scanner.fileview.view import FileView
from scanner.formats.config import ParseFailure, parse_json, parse_yaml
from scanner.formats.literals import in_sentence
from scanner.textsafe import decode
from scanner.vocab import CatalogStatus

_MAX_SHIPS = 2_000  # distinct model ids one file may contribute
_MAX_LITERAL = 160  # longest model-id literal read
# A model-list literal is quoted: the JS/JSON text of a bundle or of a single executable. A NUL-bounded run is
# no proof of one (Bun's bytecode string table packs `claude-haiku-3-5` before a header byte `5`), and Rust
# and Go literals packed back to back have no bounds at all: the content detector splits those.
_OPENERS = frozenset(b"\"'`")
# A cloud's provider prefix right before a family id, inside one literal: region and vendor words with dots
# (`us.anthropic.`, `global.openai.`), never a path (`/`) or a longer word (`-`).
_PROVIDER_PREFIX = re.compile(rb"(?<![A-Za-z0-9._-])(?:[a-z]{2,12}\.){1,2}\Z")
# A provider's path before a model id inside one literal: `cohere/`, `accounts/fireworks/models/`, `TEE/`.
_PATH_PREFIX = re.compile(rb"(?<![A-Za-z0-9._/-])(?:[A-Za-z0-9][A-Za-z0-9._-]{0,39}/){1,3}\Z")
_ELF = b"\x7fELF"
_ID_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:@/+-")
_STRUCTURED = (".json", ".yml", ".yaml")
# The key a literal is the value of, right before it: `name:"…"`, `"displayName": "…"`, `label = '…'`.
_KEY_BEFORE = re.compile(rb"([A-Za-z_$][\w$]*)[\"']?\s{0,3}[:=]\s{0,3}\Z")
_MODELISH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/+\-]{0,159}$")


def model_list(view: FileView, product: AgentProduct) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(what the file ships, what else it names): `shipped`, and the ids of its whole provider-prefixed literals
    (`"cohere/command-a-plus"` as a hosted form the catalogs know, else the id after the prefix: `"TEE/gemma-4-
    26b-a4b-uncensored"`), which the content reader finds in any other file. The same bytes give the same models
    whichever product's model list holds them."""
    ships = shipped(view, product)
    if product.ship_keys and view.window is None and view.name.endswith(_STRUCTURED):
        return ships, ()
    return ships, _prefixed_ids(view, set(ships))


def shipped(view: FileView, product: AgentProduct) -> tuple[str, ...]:
    """The model ids a model-list file names: the values under the product's `ship_keys` in a structured
    list (aider's `- name: …`), else the file's whole string literals that are model ids (a bundle's or a
    single executable's tables). A literal merely containing an id (`"us.anthropic.claude-…"` is a route's
    form, `"@anthropic-ai/claude-code"` a package) or a display name (`name: "DeepSeek-R1"`) is not one."""
    if product.ship_keys and view.window is None and view.name.endswith(_STRUCTURED):
        listed = _listed(view, product.ship_keys)
        if listed is not None:
            return listed
    return _literal_ids(view)


def _listed(view: FileView, ship_keys: tuple[str, ...]) -> tuple[str, ...] | None:
    """The values under `ship_keys` of a JSON/YAML model list; None when the file does not parse as one."""
    parse = parse_json if view.name.endswith(".json") else parse_yaml
    try:
        keys = Keys(parse(view.text))
    except ParseFailure:
        return None
    ids: dict[str, None] = {}
    for pattern in ship_keys:
        for item in keys.at(pattern):
            value = item.value.strip()
            if _MODELISH.match(value) and not value.isdigit() and len(ids) < _MAX_SHIPS:
                ids[value] = None
    return tuple(sorted(ids))


def _literal_ids(view: FileView) -> tuple[str, ...]:
    """Whole quoted string literals that begin with a family id and that the catalogs recognise as a model id
    (a listed model, a family id, or one with a snapshot pin such as `claude-opus-4-1@20250805`), or with a
    cloud's provider prefix before it (`"us.anthropic.claude-opus-4-7"`, `"openai.gpt-6.1-sol"`: the id the
    product calls on Bedrock). In a compiled binary, also the ids of its packed literal tables."""
    data, catalog = view.data, view.catalog
    labels = catalog.keys("label") | catalog.keys("not_model")
    binary = view.head[:4] == _ELF
    ids: dict[str, None] = {}
    for hit in view.hits:
        if hit.kind is not PatternKind.MODEL or len(ids) >= _MAX_SHIPS:
            continue
        opener = hit.start - 1
        prefix = _PROVIDER_PREFIX.search(data, max(0, hit.start - 32), hit.start) if hit.start else None
        if prefix is not None:
            opener = prefix.start() - 1
        if opener < 0 or data[opener] not in _OPENERS:
            name = _table_string(data, hit.start, hit.end) if binary else None
            if name is not None and name not in ids and catalog.identify(name).catalog != CatalogStatus.UNKNOWN:
                ids[name] = None
            continue  # the literal does not begin with the family id: a path, a package, a longer word
        quote = data[opener]
        end = hit.end
        while end < len(data) and end - hit.start < _MAX_LITERAL and data[end] in _ID_BYTES:
            end += 1
        if end >= len(data) or data[end] != quote:
            continue  # not a whole literal (or one cut by a window's edge: the overlap has it whole)
        name = decode(data[opener + 1 : end])
        if name in ids or catalog.identify(name).catalog == CatalogStatus.UNKNOWN:
            continue
        key = _KEY_BEFORE.search(data, max(0, opener - 48), opener)
        if key is not None and decode(key.group(1)).lower() in labels:
            continue  # `name: "Claude Opus 4.6"`, `displayName: "DeepSeek-R1"`, `family:"command-a"`: no id
        if in_sentence(data, opener + 1, end):
            continue  # `serves V4 flash as \`deepseek-flash\` (the`: a comment's word, not a model list's
        ids[name] = None
    if binary:
        starts = [h.start for h in view.hits if h.kind in (PatternKind.MODEL, PatternKind.HOSTED)]
        for name in packed_tables(view.catalog, view.data, starts)[: max(0, _MAX_SHIPS - len(ids))]:
            ids[name] = None
    return tuple(sorted(ids))


def _prefixed_ids(view: FileView, ships: set[str]) -> tuple[str, ...]:
    data, catalog = view.data, view.catalog
    ids: dict[str, None] = {}
    for hit in view.hits:
        if hit.kind is not PatternKind.MODEL or hit.start == 0 or data[hit.start - 1] != 0x2F or len(ids) >= _MAX_SHIPS:
            continue  # only a hit right after a `/`: the model of a provider's path
        prefix = _PATH_PREFIX.search(data, max(0, hit.start - 64), hit.start)
        if prefix is None or prefix.start() == 0 or data[prefix.start() - 1] not in _OPENERS:
            continue
        quote, end = data[prefix.start() - 1], hit.end
        while end < len(data) and end - hit.start < _MAX_LITERAL and data[end] in _ID_BYTES:
            end += 1
        if end >= len(data) or data[end] != quote:
            continue
        whole, tail = decode(data[prefix.start() : end]), decode(data[hit.start : end])
        for name in (whole, tail):
            if catalog.is_hosted_form(name) or catalog.identify(name).catalog != CatalogStatus.UNKNOWN:
                if name not in ships:
                    ids[name] = None
                break
    return tuple(sorted(ids))


def _table_string(data: bytes, start: int, end: int) -> str | None:
    """A string of a compiled binary's string table that begins with a family id: a JavaScriptCore (Bun) entry,
    `[u32 length | 1<<31][u32 hash][bytes]`, as long as its header says; or a C string between NULs, long
    enough and hyphenated (`\\0anthropic.claude-haiku-5-5\\0`) so that it is no two bytes of machine code. Any
    other unprintable bound is one too (a length byte before, a control byte after: Go's and .NET's tables), so an
    id is found whatever layout a release's compiler gave its neighbours; a printable bound is text (help, a word)."""
    if start >= 8 and data[start - 5] == 0x80 and data[start - 1] == 0:
        length = int.from_bytes(data[start - 8 : start - 4], "little") & 0x7FFFFFFF
        text = data[start : start + length]
        if 0 < length <= _MAX_LITERAL and all(b in _ID_BYTES for b in text):
            return decode(text)
        return None
    if start == 0 or _printable(data[start - 1]):
        return None
    stop = end
    while stop < len(data) and stop - start < _MAX_LITERAL and data[stop] in _ID_BYTES:
        stop += 1
    text = data[start:stop]
    if stop < len(data) and not _printable(data[stop]) and b"-" in text and len(text) >= _MIN_C_STRING:
        return decode(text)
    return None


def _printable(byte: int) -> bool:
    return 0x20 <= byte < 0x7F or byte in (0x09, 0x0A, 0x0D)


_MIN_C_STRING = 10

