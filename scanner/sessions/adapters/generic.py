"""Any other agent's log, read by the shapes its records share: a session id key, a time key, model keys
at the top level or one level down (`message`, `payload`, `response`), a parent session, and the route or
provider the runtime wrote beside the model."""

from __future__ import annotations

from typing import Any

from scanner.sessions.adapters.base import Facts, Passthrough, State, labels, parse_time, stem, text

_SESSION_KEYS = ("session_id", "sessionId", "conversation_id", "conversationId", "thread_id", "threadId", "session")
_TIME_KEYS = ("timestamp", "ts", "time", "created_at", "createdAt", "created", "startTime")
_MODEL_KEYS = ("model", "model_id", "modelId", "model_name")
_NESTED = ("message", "payload", "response", "data", "event")
_DECLARED_KEYS = ("route", "provider", "model_provider", "custom_llm_provider", "providerId")


class Generic(Passthrough):
    name = "generic"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return True

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        nested = [value[k] for k in _NESTED if isinstance(value.get(k), dict)]
        scopes = [value, *nested]
        session = next((text(s.get(k)) for s in scopes for k in _SESSION_KEYS if text(s.get(k))), None)
        when = next((t for k in _TIME_KEYS if (t := parse_time(value.get(k))) is not None), None)
        models = [s.get(k) for s in scopes for k in _MODEL_KEYS]
        declared = next((text(s.get(k)) for s in scopes for k in _DECLARED_KEYS if text(s.get(k))), None)
        return Facts(
            session_id=session or stem(str(state.get("path", ""))),
            timestamp=when,
            labels=labels(*models),
            declared=declared,
            parent_session_id=text(value.get("parent_session_id")) or text(value.get("parentSessionId")),
        )
