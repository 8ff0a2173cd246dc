"""The vocabulary the shape walk reads records with: the classes a key can belong to (an id, a model field, a
time, a session id, a declared route, a URL, reasoning, a signature, text, a tool call's id, a tool's arguments,
conversation below it, a reply below it, a title), the roles a value can play for the fingerprint rules, and the
kinds of blocks and roles of messages that decide what a record's parts are. Data only, and `key_flags` and
`kind_bits`, which classify a key and a block's type once (cached).
"""

from __future__ import annotations

import re

# Key classes, as bit flags: a key may be several things at once (`reasoning` names reasoning and its text).
# WANT and MARK come from the caller's `extra`: a value rule may apply under the key (keep its token values),
# a key rule fires on the key's name (keep the name). RESPONSE: what is below the key is a response (a capture's
# `response`); CONTENT: what is below it is conversation (a tool's output), never walked.
# MODEL_WORD: a key naming a model by a word of its name (`modelTitle`, `chatModelTitle`), not one of MODEL's: its
# value is a label only where the catalogs know it.
(ID, MODEL, TIME, SESSION, DECLARED, URL, REASONING, SECRET, STRONG_SECRET, TEXT, SUMMARY, TOOL, ARGS, WANT, MARK,
 RESPONSE, CONTENT, TITLE, MODEL_WORD) = (1 << i for i in range(19))

# The role a token value plays in its record, as bit flags on each kept leaf (a fingerprint rule names the roles
# it applies to): any id, a tool call's id, a response's or message's own id, a signature or encrypted blob, a
# model field; ROLE_ANY is on every leaf.
ROLE_ID, ROLE_TOOL_CALL, ROLE_RESPONSE, ROLE_SIGNATURE, ROLE_MODEL, ROLE_ANY = (1 << i for i in range(6))
ROLES = {
    "id": ROLE_ID,
    "tool-call": ROLE_TOOL_CALL,
    "response": ROLE_RESPONSE,
    "signature": ROLE_SIGNATURE,
    "model": ROLE_MODEL,
    "any": ROLE_ANY,
}

ID_KEY = re.compile(r"^(?:id|ID|ref|uuid)$|[_\-.](?:id|ID|ref|uuid)$|[a-z0-9](?:Id|ID|Ref|Uuid)$")
# Ids a runtime or a user mints for its own bookkeeping: never a provider's.
OWN_ID = re.compile(
    r"^(?:session|conversation|conv|thread|trace|span|parent|project|user|org|workspace|run|task|turn|"
    r"interaction|hook|prompt|agent|subagent|chat|client|install|device|machine|event|tenant|account|instance)",
    re.IGNORECASE,
)
MODEL_KEYS = frozenset(
    {
        "model",
        "model_id",
        "modelId",
        "modelID",
        "model_name",
        "modelName",
        "llm_model",
        "selectedModel",
        "newModel",
        "model_group",
        "modelVersion",
        "deployment_name",
        "deploymentName",
        "engine",
        "resolved_model",
        "response_model",
        "served_model",
        "x-litellm-model-name",
        "x-litellm-model-group",
    }
)
# Model fields that name what served the record wherever they sit (a store's `resolved_model`, a proxy's header).
SERVED_KEYS = frozenset({"resolved_model", "response_model", "served_model", "x-litellm-model-name"})
TITLE_KEYS = frozenset({"title", "sessionTitle", "session_title", "chatTitle", "conversationTitle", "chat_title"})
TIME_KEYS = (
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
    "datetime_utc",
    "startedDateTime",
)
TIME_RANK = {k: i for i, k in enumerate(TIME_KEYS)}
SESSION_KEYS = frozenset(
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
DECLARED_KEYS = frozenset(
    {
        "route",
        "provider",
        "providerID",
        "providerId",
        "provider_id",
        "provider_name",
        "providerName",
        "model_provider",
        "modelProvider",
        "model_provider_id",
        "api_provider",
        "apiProvider",
        "custom_llm_provider",
        "upstream",
        "backend",
        "served_by",
        "gateway",
        "via",
    }
)
URL_KEYS = frozenset(
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
        "x-litellm-model-api-base",
    }
)
REASONING_KEYS = frozenset(
    {
        "think",
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
SECRET_KEYS = frozenset({"signature", "data", "sig", "blob", "opaque", "encrypted", "thinkingSignature"})
STRONG_SECRET_KEYS = frozenset(
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
TEXT_KEYS = frozenset({"text", "body", "content", "reasoning", "thinking", "think", "thought", "value", "description"})
TOOL_KEYS = frozenset({"call_id", "tool_call_id", "toolCallId", "tool_use_id", "toolUseId"})
# What a tool was called with: conversation (a `model` in there is what the agent asked a subagent for).
ARGS_KEYS = frozenset({"arguments", "args", "input", "toolArgs", "function_args", "parameters", "tool_input"})
# What a tool returned or a user pasted, under keys agents give it: conversation, never walked.
CONTENT_KEYS = frozenset(
    {"toolUseResult", "functionResponse", "function_response", "resultDisplay", "tool_output", "toolResult"}
)
# What is below these keys is a provider's response: a model named there served the record.
RESPONSE_KEYS = frozenset(
    {"response", "model_response", "modelResponse", "response_body", "responseBody", "response_json"}
)
# A message of these roles holds conversation (a prompt, a tool's output); only its own ids and times are read.
CONVERSATION_ROLES = frozenset({"user", "system", "tool", "function", "developer", "ipython", "human"})
ASSISTANT_ROLES = frozenset({"assistant", "model", "ai", "bot"})
# Blocks that carry a tool's output or a server tool's results: their own ids are read, their content is not.
RESULT_KINDS = frozenset(
    {
        "tool_result",
        "function_call_output",
        "custom_tool_call_output",
        "tool_call_output",
        "mcp_tool_result",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "local_shell_call_output",
        "shell_call_output",
        "apply_patch_call_output",
        "computer_call_output",
    }
)
# The record or message kinds of a model's reply (Claude Code `assistant`, Gemini CLI `gemini`, a Responses object).
# A kind that names the assistant is the assistant's own event too (`assistant.message`, `assistant.turn_start`).
RESPONSE_KINDS = frozenset({"assistant", "gemini", "model", "response", "ai", "agent_message"})
# Keys only a provider's reply has: a `model` beside them is what served it, not what was asked for.
REPLY_MARKS = frozenset(
    {
        "usage",
        "usageMetadata",
        "choices",
        "candidates",
        "stop_reason",
        "stopReason",
        "finish_reason",
        "finishReason",
        "system_fingerprint",
        "tokens",
        "modelVersion",
    }
)
REPLY_OBJECTS = frozenset({"chat.completion", "chat.completion.chunk", "text_completion", "response", "message"})
# Keys that name a response's or message's own id (a tool call's id is a tool call's, a request's a request's).
RESPONSE_ID_KEYS = frozenset(
    {"id", "response_id", "responseId", "message_id", "messageId", "msg_id", "generation_id", "generationId"}
)
# Lists whose items are tool calls: an `id` in one is a tool call's.
TOOL_LISTS = frozenset({"tool_calls", "toolCalls", "toolRequests", "tool_uses", "function_calls", "toolUse"})
THINK_TAG = "<think"
THINK_WINDOW = 256
REASONING_KINDS = frozenset(
    {
        "think",
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
REDACTED_KINDS = frozenset({"redacted_thinking", "reasoning.encrypted"})
# A record type one of whose words names reasoning is a reasoning block, whatever else it says (Codex's
# `agent_reasoning` events, a `reasoning_summary`, a `thinking_delta`).
_REASONING_WORDS = frozenset({"reasoning", "thinking", "think", "thought", "thoughts"})
_KIND_WORDS = re.compile(r"[a-z]+")
_REASONING_KIND: dict[str, bool] = {}
TOOL_KINDS = frozenset(
    {
        "tool_call",
        "function_call",
        "tool_use",
        "server_tool_use",
        "mcp_tool_use",
        "invoke",
        "call",
        "function",
        "custom_tool_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "computer_call",
    }
)
# What a dict's own `type` (or `kind`) and `role` make of it, as bits: conversation (a prompt, a system message, a
# tool's output: its own ids and times are read, nothing below), a reasoning block, a reply, a tool call, redacted
# reasoning.
KIND_TALK, KIND_BLOCK, KIND_REPLY, KIND_TOOL, KIND_REDACTED = (1 << i for i in range(5))
ROLE_KINDS = {
    role: KIND_TALK * (role in CONVERSATION_ROLES) | KIND_REPLY * (role in ASSISTANT_ROLES)
    for role in CONVERSATION_ROLES | ASSISTANT_ROLES
}
# The classifying caches keep at most 20k keys (or kinds) each, and only short ones: a log that invents keys of a
# megabyte is classed key by key, never held (20k of them would be gigabytes).
MAX_CACHED = 20_000
MAX_CACHED_KEY = 256
# kind_bits' answers so far, read directly by the walk (one lookup a dict).
KIND_BITS: dict[str, int] = {}


def kind_bits(kind: str) -> int:
    """The KIND_* bits of a dict whose `type` (or `kind`) is `kind`, in any case."""
    found = KIND_BITS.get(kind)
    if found is None:
        low = kind.lower()
        found = (
            KIND_TALK * (low in RESULT_KINDS)
            | KIND_BLOCK * (bool(low) and is_reasoning_kind(low))
            | KIND_REPLY * (low in RESPONSE_KINDS or "assistant" in low)  # `assistant.message`: a reply
            | KIND_TOOL * (low in TOOL_KINDS)
            | KIND_REDACTED * (low in REDACTED_KINDS)
        )
        if len(KIND_BITS) < MAX_CACHED and len(kind) <= MAX_CACHED_KEY:
            KIND_BITS[kind] = found
    return found


_FLAGS: dict[str, int] = {}
_MODEL_WORD = re.compile(r"(?:(?:^|[_-])(?:model|MODEL)|(?<=[a-z0-9])Model)(?=$|[_\-A-Z0-9])")
_MODEL_LIST = re.compile(r"(?i)models|model_?list")  # a list of models offered, not the one a record used


def key_flags(key: str) -> int:
    found = _FLAGS.get(key)
    if found is not None:
        return found
    flags = 0
    if ID_KEY.search(key) and not OWN_ID.match(key):
        flags |= ID
    flags |= MODEL * (key in MODEL_KEYS) | TIME * (key in TIME_RANK) | SESSION * (key in SESSION_KEYS)
    flags |= DECLARED * (key in DECLARED_KEYS) | URL * (key in URL_KEYS) | REASONING * (key in REASONING_KEYS)
    flags |= SECRET * (key in SECRET_KEYS) | STRONG_SECRET * (key in STRONG_SECRET_KEYS)
    flags |= TEXT * (key in TEXT_KEYS) | SUMMARY * (key == "summary") | TOOL * (key in TOOL_KEYS)
    flags |= ARGS * (key in ARGS_KEYS) | CONTENT * (key in CONTENT_KEYS) | RESPONSE * (key in RESPONSE_KEYS)
    flags |= TITLE * (key in TITLE_KEYS)
    if not flags & (MODEL | DECLARED) and _MODEL_WORD.search(key) and not _MODEL_LIST.search(key):
        flags |= MODEL_WORD
    if len(_FLAGS) < MAX_CACHED and len(key) <= MAX_CACHED_KEY:
        _FLAGS[key] = flags
    return flags


def is_reasoning_kind(kind: str) -> bool:
    """Whether a record's `type` (lowercased) names a reasoning block."""
    found = _REASONING_KIND.get(kind)
    if found is None:
        found = kind in REASONING_KINDS or not _REASONING_WORDS.isdisjoint(_KIND_WORDS.findall(kind))
        if len(_REASONING_KIND) < MAX_CACHED and len(kind) <= MAX_CACHED_KEY:
            _REASONING_KIND[kind] = found
    return found


def is_id_key(key: str) -> bool:
    return bool(key_flags(key) & ID)


def record_key(key: str, parent_flags: int) -> bool:
    """A key a record under a session or model key names that thing by: the session's `id`, the model's `id` or
    `name`."""
    if key == "id":
        return bool(parent_flags & (SESSION | MODEL))
    return key == "name" and bool(parent_flags & MODEL)


def _key_roles(flags: int) -> int:
    """The roles a value plays by its key's class alone (and on every leaf, `any`): an id, a signature slot, a
    model field."""
    return ROLE_ANY | ROLE_ID * bool(flags & ID) | ROLE_SIGNATURE * bool(flags & (SECRET | STRONG_SECRET)) | (
        ROLE_MODEL * bool(flags & MODEL)
    )


ROLE_FLAGS = ID | SECRET | STRONG_SECRET | MODEL
# Every combination of the key classes that give a role, looked up per leaf (the bit arithmetic done once).
ROLES_OF = {
    combo: _key_roles(combo)
    for combo in range(ROLE_FLAGS + 1)
    if combo & ~ROLE_FLAGS == 0
}
