"""The one name a wired model goes by however it is spelled, pinned or aliased: what findings and reports group by.

`claude-opus-4-1`, `anthropic/claude-opus-4-1` and `claude-opus-4-1@20250805` are one model; so is a dated
snapshot (`claude-opus-4-1-20250805`) when its undated id is among the models too; an alias (`hx-prod → gpt-5.1`)
names the model it points at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from scanner.kinds.models import ModelEntry

_DATED = re.compile(r"-(?:20\d{6})$")


def model_key(m: ModelEntry) -> str:
    """The model a hosted form or an alias names, else the catalog's canonical id, else the name."""
    if m.base_model and (m.canonical is None or m.canonical.startswith(m.base_model)):
        return m.base_model
    return m.canonical or m.name


def keyer(models: Iterable[ModelEntry]) -> Callable[[ModelEntry], str]:
    """`model_key`, with a dated snapshot folded into its undated id when that id is among `models` too."""
    keys = {model_key(m) for m in models}

    def key(m: ModelEntry) -> str:
        k = model_key(m)
        undated = _DATED.sub("", k)
        return undated if undated != k and undated in keys else k

    return key


def is_alias(m: ModelEntry) -> bool:
    """A name of its own pointing at a model (`hx-prod → gpt-5.1`), not a catalogued spelling of that model."""
    return bool(m.base_model) and m.canonical is None and m.name != m.base_model
