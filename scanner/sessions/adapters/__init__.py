"""Session-log adapters: the generic record reader, and one module per agent whose records need what only that
agent's format says (which session a record belongs to, the model its turns ran under, the route it declares).
`ADAPTERS` is the one registry, most specific first: the first adapter that claims a file's first record reads all
of it; `generic` claims anything left. Containers (JSON, SQLite, recorded exchanges, transcripts) are no adapters:
`scanner.sessions.formats` turns each into records, whoever wrote it."""

from __future__ import annotations

from scanner.sessions.adapters.base import Adapter, Facts, State
from scanner.sessions.adapters.claude_code import ClaudeCode
from scanner.sessions.adapters.cline import Cline
from scanner.sessions.adapters.codex import Codex
from scanner.sessions.adapters.gemini_cli import GeminiCli
from scanner.sessions.adapters.generic import Generic
from scanner.sessions.adapters.litellm import LiteLLM
from scanner.sessions.adapters.pi import Pi
from scanner.sessions.adapters.raw_api import RawApi

ADAPTERS: tuple[Adapter, ...] = (
    Codex(),
    ClaudeCode(),
    Cline(),
    GeminiCli(),
    Pi(),
    LiteLLM(),
    RawApi(),
    Generic(),
)

__all__ = ["ADAPTERS", "Adapter", "Facts", "State"]
