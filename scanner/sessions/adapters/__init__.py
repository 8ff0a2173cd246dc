"""Session-log adapters, one module per agent format. `ADAPTERS` is the one registry, most specific first:
the first adapter that claims a file reads all of it; `generic` claims anything left."""

from __future__ import annotations

from scanner.sessions.adapters.aider import Aider
from scanner.sessions.adapters.base import Adapter, Facts, State
from scanner.sessions.adapters.claude_code import ClaudeCode
from scanner.sessions.adapters.cline import Cline
from scanner.sessions.adapters.codex import Codex
from scanner.sessions.adapters.gemini_cli import GeminiCli
from scanner.sessions.adapters.generic import Generic
from scanner.sessions.adapters.litellm import LiteLLM
from scanner.sessions.adapters.openai_agents import OpenAIAgents
from scanner.sessions.adapters.pi import Pi
from scanner.sessions.adapters.raw_api import RawApi

ADAPTERS: tuple[Adapter, ...] = (
    Aider(),
    OpenAIAgents(),
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
