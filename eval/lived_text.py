"""The words of lived-in sessions that are not tool output: prompts, the model's short answers, thinking.

Prompts are what a developer types; answers and thinking are sentences of the real sessions in
shared/samples (Claude Code, Codex, Cline and mini-swe-agent transcripts), cut to sentences and reused.
"""

from __future__ import annotations

import random

PROMPTS = [
    "The config loader returns None when OPENAI_BASE_URL is unset; find why and fix it.",
    "Read sample.py. Name two edge cases slugify mishandles. Be brief.",
    "Run the test suite and fix whatever fails in the settings module.",
    "Which model does our proxy route the summariser to? Check the litellm config and the price list.",
    "Upgrade the SDKs to their latest versions and make the type checker pass again.",
    "Add retries with backoff to the HTTP client; keep the public API unchanged.",
    "Why is the nightly job slower since last week? Look at the logs under var/.",
    "Write a small CLI that prints the token count of each file in docs/.",
    "List every model id our code references and where; we are auditing vendor usage.",
    "Refactor the cache layer into its own module and add tests for eviction.",
    "Explain what this migration does before we run it in production.",
    "Find the place that builds the Anthropic client and make the timeout configurable.",
]

ANSWERS = [
    "I'll inspect `sample.py` and answer from its implementation.",
    "I'll run that bash command for you.",
    "Let me look at how the client is constructed and whether the base URL is overridden.",
    "The traceback shows the loader returning None when the variable is unset.",
    "I need to locate the file mentioned in the traceback to confirm its existence and path.",
    "I will read the file to examine the method and locate the problematic code.",
    "Multiple spaces produce repeated hyphens, and punctuation remains in the slug.",
    "The tests pass now; I updated the changelog with the fix.",
    "I found three call sites; two pass the model explicitly and one relies on the default.",
    "Next I will run the test suite again to confirm the fix.",
]

THINKING = [
    "The user wants the default to come from the environment. The loader reads the variable once at import, "
    "so a test that sets it later sees None. Moving the read into the function fixes that.",
    "I've been digging into this issue. The traceback pinpoints the function, specifically when handling a "
    "callable that raises on an empty sequence.",
    "Checking the fixture format first: the field names differ between the two versions.",
    "Two approaches: patch the call site or change the helper. The helper has four callers; changing it is safer.",
    "Verifying the test actually fails first, then applying the change.",
    "The price list is large; grepping for the keys is faster than reading it whole.",
]


def prompt(rng: random.Random) -> str:
    return rng.choice(PROMPTS)


def answer(rng: random.Random, k: int = 2) -> str:
    return " ".join(rng.choice(ANSWERS) for _ in range(k))


def thinking(rng: random.Random, k: int = 2) -> str:
    return "\n\n".join(rng.choice(THINKING) for _ in range(k))


def summary_title(rng: random.Random) -> str:
    return "**" + rng.choice(["Planning the parser change", "Checking the fixture format", "Reviewing edge cases",
                              "Deciding between two approaches", "Reading the price list"]) + "**"
