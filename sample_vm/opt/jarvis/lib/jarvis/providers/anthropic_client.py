"""Anthropic Messages client for the claude-* entries of the model catalogue.

Requests go to the inference proxy (ANTHROPIC_BASE_URL), which adds the API key.
"""
import os

from anthropic import Anthropic

client = Anthropic(base_url=os.environ["ANTHROPIC_BASE_URL"])


def complete(messages, system=None, max_tokens=4096, tools=None):
    kwargs = {}
    if system:
        kwargs["system"] = system
    if tools:
        kwargs["tools"] = tools
    return client.messages.create(
        model="claude-opus-4-8",
        max_tokens=max_tokens,
        messages=messages,
        **kwargs,
    )
