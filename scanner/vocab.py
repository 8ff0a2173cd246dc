"""The closed vocabularies of the inventory, each an enum with its one ranking.

Every member is a `str` with its JSON spelling as value, so the JSON contract writes the same words it always
did; `str()` and f-strings give that spelling too (as `enum.StrEnum` does, on Python 3.10 as well).
"""

from __future__ import annotations

from enum import Enum


class Word(str, Enum):
    """A member of a vocabulary: compares, hashes, formats and serialises as its spelling."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Context(Word):
    """Where a piece of evidence was seen; decides whether it counts as wiring."""

    CONFIG = "config"
    ENV = "env"
    SOURCE = "source"
    BINARY = "binary"
    LOG = "log"
    SESSION = "session"
    PACKAGE = "package"
    DOCS = "docs"
    TEST = "test"
    COMMENT = "comment"
    # What a session's conversation names (a prompt, a tool's input or output, a quoted file, the model's own
    # text): a mention, never wiring.
    CONVERSATION = "conversation"

    @property
    def precedence(self) -> int:
        """When two detectors place one line in different contexts, the lower (the more specific) wins."""
        return _CONTEXT_PRECEDENCE[self]


_CONTEXT_PRECEDENCE = {
    c: i
    for i, c in enumerate(
        (
            Context.COMMENT,
            Context.ENV,
            Context.SESSION,
            Context.CONVERSATION,  # a session's own structure names what its conversation also says: the structure wins
            Context.SOURCE,
            Context.CONFIG,
            Context.BINARY,
            Context.LOG,
            Context.PACKAGE,
            Context.TEST,
            Context.DOCS,
        )
    )
}

#: Contexts in which a model or endpoint is really used by the VM (not merely mentioned).
WIRING_CONTEXTS = frozenset({Context.CONFIG, Context.ENV, Context.SOURCE, Context.BINARY, Context.SESSION})


class Severity(Word):
    """How much a finding or a change matters; declared from the least to the most."""

    INFO = "info"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        """0 for info up to 3 for high."""
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {s: i for i, s in enumerate(Severity)}

#: Severities the most severe first, as summaries list them.
SEVERITIES_WORST_FIRST: tuple[Severity, ...] = tuple(reversed(Severity))


class Confidence(Word):
    """How sure a fingerprint rule, or an attribution made from rules, is; declared from the least to the most."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        """1 for low up to 3 for high: a weight that adds up across rules."""
        return _CONFIDENCE_RANK[self]

    @classmethod
    def of_rank(cls, rank: int) -> Confidence:
        """The confidence of a rank, clamped to the scale."""
        return tuple(cls)[min(max(rank, 1), len(cls)) - 1]


_CONFIDENCE_RANK = {c: i + 1 for i, c in enumerate(Confidence)}


class PseudoVendor(Word):
    """The vendor values that name no company: a model served by the operator itself, or no one can tell."""

    SELF_HOSTED = "self-hosted"
    UNKNOWN = "unknown"


#: Vendor values that are no outside company: a session served by one of them sent its data to no vendor.
PSEUDO_VENDORS: tuple[PseudoVendor, ...] = tuple(PseudoVendor)


class CatalogStatus(Word):
    """How much the catalogs know of a model id."""

    KNOWN = "known"  # the id itself, or a spelling of it, is listed
    FAMILY = "family"  # only its family's pattern matches
    UNKNOWN = "unknown"  # no catalog recognises it


class SwitchState(str, Enum):
    ON = "on"
    OFF = "off"
    UNKNOWN = "unknown"
