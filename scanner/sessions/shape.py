"""What one record says, read by the shape of its JSON tree rather than by its key names.

One bounded breadth-first walk per record classifies everything the session forensics needs, whatever an
unknown agent calls its keys: id-shaped values under keys that name an id (`id`, `*_id`, `*Id`, `ref`), every
other short token value (for the fingerprint rules that name their field), model labels, timestamps (ISO text
or epoch numbers under time-ish keys), the session id, a provider or route the runtime wrote, hosts of URLs,
tool-call ids, and reasoning: plaintext in any common spelling (`reasoning`, `thinking`, `reasoning_content`,
`thought`, a block whose `type`/`kind` says so) or an encrypted blob (`encrypted_content`, a signature).

Nothing here raises: the walk stops at MAX_NODES nodes, MAX_DEPTH levels and MAX_LEAVES token values.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scanner.sessions.adapters.base import parse_time

MAX_NODES = 20_000
MAX_DEPTH = 40
MAX_LEAVES = 5_000
MAX_VALUE = 1 << 20
MAX_LABELS = 20
_SHALLOW = 3  # session ids, times and declared routes count only this close to the record's top
_LABEL_DEPTH = 6

VISIBLE = "visible"
ENCRYPTED = "encrypted"

# Key classes, as bit flags: a key may be several things at once (`reasoning` names reasoning and its text).
# WANT and MARK come from the caller's `extra`: a value rule may apply under the key (keep its token values),
# a key rule fires on the key's name (keep the name).
(ID, MODEL, TIME, SESSION, DECLARED, URL, REASONING, SECRET, STRONG_SECRET, TEXT, SUMMARY, TOOL, ARGS, WANT, MARK) = (
    1 << i for i in range(15)
)

_ID_KEY = re.compile(r"^(?:id|ID|ref|uuid)$|[_\-.](?:id|ID|ref|uuid)$|[a-z0-9](?:Id|ID|Ref|Uuid)$")
# Ids a runtime or a user mints for its own bookkeeping: never a provider's.
_OWN_ID = re.compile(
    r"^(?:session|conversation|conv|thread|trace|span|parent|project|user|org|workspace|run|task|turn|"
    r"interaction|hook|prompt|agent|subagent|chat|client|install|device|machine|event|tenant|account|instance)",
    re.IGNORECASE,
)
_MODEL_KEYS = frozenset(
    {
        "model",
        "model_id",
        "modelId",
        "modelID",
        "model_name",
        "modelName",
        "selectedModel",
        "newModel",
        "model_group",
        "modelVersion",
        "deployment_name",
        "deploymentName",
        "engine",
    }
)
_TIME_KEYS = (
    "timestamp",
    "ts",
    "time",
    "at",
    "created_at",
    "createdAt",
    "created",
    "startTime",
    "start_time",
    "started_at",
    "startedAt",
    "date",
    "datetime",
    "when",
    "event_time",
    "eventTime",
    "logged_at",
)
_TIME_RANK = {k: i for i, k in enumerate(_TIME_KEYS)}
_SESSION_KEYS = frozenset(
    {
        "session_id",
        "sessionId",
        "sessionID",
        "session",
        "conversation_id",
        "conversationId",
        "conv",
        "conv_id",
        "convId",
        "thread_id",
        "threadId",
        "chat_id",
        "chatId",
    }
)
_DECLARED_KEYS = frozenset(
    {
        "route",
        "provider",
        "providerID",
        "providerId",
        "provider_id",
        "model_provider",
        "custom_llm_provider",
        "upstream",
        "backend",
        "served_by",
        "gateway",
        "via",
    }
)
_URL_KEYS = frozenset(
    {
        "url",
        "uri",
        "base_url",
        "baseURL",
        "baseUrl",
        "endpoint",
        "api_base",
        "apiBase",
        "host",
        "azure_endpoint",
        "upstream_url",
        "api_url",
    }
)
_REASONING_KEYS = frozenset(
    {
        "reasoning",
        "thinking",
        "reasoning_content",
        "reasoningContent",
        "thought",
        "thoughts",
        "reasoningText",
        "reasoning_text",
        "reasoning_details",
        "thinking_blocks",
        "analysis",
    }
)
_SECRET_KEYS = frozenset({"signature", "data", "sig", "blob", "opaque", "encrypted", "thinkingSignature"})
_STRONG_SECRET_KEYS = frozenset(
    {
        "encrypted_content",
        "encryptedContent",
        "reasoningEncryptedContent",
        "reasoningOpaque",
        "redactedContent",
        "encrypted_reasoning",
        "reasoning_encrypted",
    }
)
_TEXT_KEYS = frozenset({"text", "body", "content", "reasoning", "thinking", "thought", "value", "description"})
_TOOL_KEYS = frozenset({"call_id", "tool_call_id", "toolCallId", "tool_use_id", "toolUseId"})
# What a tool was called with: a `model` in there is what the agent asked for (a subagent's), not what ran.
_ARGS_KEYS = frozenset({"arguments", "args", "input", "toolArgs", "function_args", "parameters", "tool_input"})
_REASONING_KINDS = frozenset(
    {
        "reasoning",
        "thinking",
        "thought",
        "thoughts",
        "reasoning_text",
        "reasoning_content",
        "redacted_thinking",
        "reasoning.text",
        "reasoning.encrypted",
        "analysis",
    }
)
_REDACTED_KINDS = frozenset({"redacted_thinking", "reasoning.encrypted"})
_TOOL_KINDS = frozenset({"tool_call", "function_call", "tool_use", "invoke", "call", "function", "custom_tool_call"})
_BLOB = re.compile(r"[A-Za-z0-9+/=_\-:.]{16,}")
_HOST = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*://)?(?:[^@/]*@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?::\d+)?(?:[/?#]|$)")
_REASONING_FLAGS = REASONING | SECRET | STRONG_SECRET | TEXT
_TOKEN_FLAGS = WANT | MODEL | TOOL | STRONG_SECRET | REASONING  # classes whose reading asks "one token?"
_IN_REASONING, _IN_ARGS = 1, 2
_FACT_FLAGS = (1 << 13) - 1  # every class but WANT and MARK
_FLAGS: dict[str, int] = {}
# key -> class flags | WANT, when every token value is wanted. Bounded (20k keys).
_ALL_WANTED: dict[str, int] = {}


def key_flags(key: str) -> int:
    found = _FLAGS.get(key)
    if found is not None:
        return found
    flags = 0
    if _ID_KEY.search(key) and not _OWN_ID.match(key):
        flags |= ID
    flags |= MODEL * (key in _MODEL_KEYS) | TIME * (key in _TIME_RANK) | SESSION * (key in _SESSION_KEYS)
    flags |= DECLARED * (key in _DECLARED_KEYS) | URL * (key in _URL_KEYS) | REASONING * (key in _REASONING_KEYS)
    flags |= SECRET * (key in _SECRET_KEYS) | STRONG_SECRET * (key in _STRONG_SECRET_KEYS)
    flags |= TEXT * (key in _TEXT_KEYS) | SUMMARY * (key == "summary") | TOOL * (key in _TOOL_KEYS)
    flags |= ARGS * (key in _ARGS_KEYS)
    if len(_FLAGS) < 20_000:
        _FLAGS[key] = flags
    return flags


def is_id_key(key: str) -> bool:
    return bool(key_flags(key) & ID)


def is_blob(value: str) -> bool:
    """An opaque token (base64, Fernet, a signature, maybe cut with a `…<truncated>` mark), not words."""
    return bool(_BLOB.match(value))


@dataclass(init=False, slots=True)
class Shape:
    """What one record's walk found. Built once per record: slotted, with a plain constructor (a dataclass's
    default factories cost a call each)."""

    leaves: list[tuple[str, str, str]]  # (parent key, key, value) of token values
    marked: set[str]  # key names some key rule fires on (`extra` said MARK)
    labels: list[str]
    timestamp: float | None
    session_id: str | None
    declared: str | None
    hosts: list[str]
    reasoning: set[str]
    tool_calls: int
    truncated: bool  # the walk hit one of its bounds
    work: int  # parser events the walk cost: containers visited and list items looked at

    def __init__(self) -> None:
        self.leaves, self.marked, self.labels, self.hosts, self.reasoning = [], set(), [], [], set()
        self.timestamp = self.session_id = self.declared = None
        self.tool_calls, self.truncated, self.work = 0, False, 0


def _no_space(value: str) -> bool:
    """No whitespace anywhere in `value`: what a search for the regex class `\\s` says (both test
    Py_UNICODE_ISSPACE), at C speed: the regex costs 6 us on a 1 kB signature, the split under 1 us."""
    if not value:
        return True
    head = value.split(None, 1)  # [] when all of it is whitespace
    return bool(head) and head[0] == value


def host_of(value: str) -> str | None:
    m = _HOST.match(value)
    return m.group(1).lower() if m else None


def read_shape(record: Any, extra: Callable[[str], int] | None = None, info: dict[str, int] | None = None) -> Shape:
    """Classify one record's JSON tree. Never raises; bounded in nodes, depth and collected values.
    `extra(key)` gives a key's WANT bit (values under it are worth keeping as leaves: some fingerprint rule
    names that key) and MARK bit (a key rule fires on its name); without it every token value is kept and no
    key is marked. `info` is the caller's cache of key classes for that `extra` (the fingerprinter keeps one)."""
    shape = Shape()
    if not isinstance(record, dict | list):
        return shape
    if info is None:
        info = _ALL_WANTED if extra is None else {}
    best_time: tuple[int, int] | None = None
    session_depth = _SHALLOW + 1
    # (node, its key, depth, context bits: _IN_REASONING | _IN_ARGS)
    queue: deque[tuple[Any, str, int, int]] = deque([(record, "", 0, 0)])
    nodes = items = 0
    leaves = shape.leaves
    info_of = info.get
    while queue:
        if nodes >= MAX_NODES:
            shape.truncated = True
            break
        node, parent, depth, ctx = queue.popleft()
        nodes += 1
        if type(node) is list:
            if depth >= MAX_DEPTH:
                shape.truncated = True
                continue
            items += len(node)
            pflags = _info(info, parent, extra) if parent else 0
            for item in node:
                if type(item) is str:
                    wanted = item and pflags & WANT and len(leaves) < MAX_LEAVES and len(item) <= MAX_VALUE
                    if wanted and _no_space(item):
                        leaves.append(("", parent, item))
                    if pflags & URL and len(shape.hosts) < 20 and (h := host_of(item)):
                        shape.hosts.append(h)
                elif isinstance(item, dict | list):
                    queue.append((item, parent, depth + 1, ctx))
            continue
        if type(node) is not dict:
            continue
        kind = node.get("type")
        if type(kind) is not str:
            kind = node.get("kind")
        kind = kind.lower() if type(kind) is str else ""
        block = bool(ctx & _IN_REASONING) or kind in _REASONING_KINDS or node.get("thought") is True
        in_args = ctx & _IN_ARGS
        if kind:
            if kind in _REDACTED_KINDS:
                shape.reasoning.add(ENCRYPTED)
            if kind in _TOOL_KINDS:
                shape.tool_calls += 1
        visible = secret = False
        below = depth + 1
        # The context a child under a key of no class inherits (most keys): this node's, unchanged.
        plain = _IN_REASONING * block | in_args
        for key, value in node.items():
            flags = info_of(key)
            if flags is None:
                flags = _info(info, key, extra)
            kind_of = type(value)
            if not flags:  # most values: nothing to read here, only children to walk
                if kind_of is dict or kind_of is list:
                    if depth < MAX_DEPTH:
                        queue.append((value, key, below, plain))
                    else:
                        shape.truncated = True
                continue
            if flags & MARK:
                shape.marked.add(key)
            if kind_of is str:
                if not value:
                    continue
                # Whether the value is one token, tested only where something reads it (prose under `text`
                # or `content` outside a reasoning block never needs it).
                token = bool(flags & _TOKEN_FLAGS or (block and flags & (SECRET | TEXT))) and (
                    len(value) <= MAX_VALUE and _no_space(value)
                )
                if token and flags & WANT and len(leaves) < MAX_LEAVES:
                    leaves.append((parent, key, value))
                if not flags & _FACT_FLAGS:
                    continue
                if flags & MODEL and token and depth <= _LABEL_DEPTH and len(value) <= 120 and not in_args:
                    _add_label(shape, value)
                if flags & TIME and depth <= _SHALLOW:
                    best_time = _better_time(shape, best_time, key, depth, value)
                if depth < session_depth and (
                    (flags & SESSION and len(value) <= 200 and value.strip())
                    or (key == "id" and parent and key_flags(parent) & SESSION)
                ):
                    shape.session_id, session_depth = value.strip(), depth
                if flags & DECLARED and depth <= _SHALLOW and shape.declared is None and len(value) <= 200:
                    shape.declared = value.strip() or None
                if flags & (URL | DECLARED) and len(shape.hosts) < 20 and (h := host_of(value)):
                    shape.hosts.append(h)  # `upstream: https://x.openai.azure.com/…` names a host too
                if flags & TOOL and token:
                    shape.tool_calls += 1
                if flags & _REASONING_FLAGS:
                    state = _reasoning_of(flags, block, token, value)
                    visible = visible or state == VISIBLE
                    secret = secret or state == ENCRYPTED
            elif kind_of is dict or kind_of is list:
                if depth < MAX_DEPTH:
                    reasoning = (block or bool(flags & REASONING)) and not flags & SUMMARY
                    if flags & REASONING and kind_of is list and value and key == "thoughts":
                        visible = True  # Gemini CLI's summarized thoughts
                    child = _IN_REASONING * reasoning | (_IN_ARGS if in_args or flags & ARGS else 0)
                    queue.append((value, key, below, child))
                else:
                    shape.truncated = True
            elif kind_of is int or kind_of is float:
                if flags & TIME and depth <= _SHALLOW:
                    best_time = _better_time(shape, best_time, key, depth, value)
                elif flags & SESSION and depth < session_depth and kind_of is int:
                    shape.session_id, session_depth = str(value), depth
        items += len(node)
        if visible:
            shape.reasoning.add(VISIBLE)
        elif secret:
            shape.reasoning.add(ENCRYPTED)
    shape.work = nodes + items
    return shape


def _info(info: dict[str, int], key: str, extra: Callable[[str], int] | None) -> int:
    """A key's class flags, plus the caller's WANT and MARK bits for it (cached per `extra`)."""
    found = info.get(key)
    if found is None:
        found = key_flags(key) | (WANT if extra is None else extra(key) & (WANT | MARK))
        if len(info) < 20_000:
            info[key] = found
    return found


def _add_label(shape: Shape, value: str) -> None:
    if len(shape.labels) < MAX_LABELS and value not in shape.labels:
        shape.labels.append(value)


def _reasoning_of(flags: int, block: bool, token: bool, value: str) -> str | None:
    """What one string value says of reasoning: visible text, an encrypted blob, or nothing."""
    if flags & STRONG_SECRET or (block and flags & SECRET):
        return ENCRYPTED if token and is_blob(value) else None
    if block and flags & TEXT:
        # A blob where the text would be is encrypted; anything else there is the reasoning, readable.
        return ENCRYPTED if token and len(value) > 40 and is_blob(value) else VISIBLE
    if flags & REASONING and not block:
        if not token:
            return VISIBLE  # prose under a reasoning key (`reasoning_content`, OpenRouter `reasoning`)
        return ENCRYPTED if len(value) > 40 and is_blob(value) else None
    return None


def _better_time(
    shape: Shape, best: tuple[int, int] | None, key: str, depth: int, value: Any
) -> tuple[int, int] | None:
    """Keep the shallowest time, and at one depth the key that most often means "when this happened"."""
    rank = (depth, _TIME_RANK[key])
    if best is not None and rank >= best:
        return best
    seconds = parse_time(value)
    if seconds is None:
        return best
    shape.timestamp = seconds
    return rank
