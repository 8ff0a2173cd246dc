"""The findings about local models: weights that are not what their store says, pickles that run code, licenses
that restrict how a served model may be used, and weights anyone may rewrite."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from scanner.findings.rule import RuleHit
from scanner.kinds.local_models.facts import LocalFile, LocalModelEntry
from scanner.model import Location
from scanner.vocab import Context, Severity

if TYPE_CHECKING:
    from scanner.kinds import Inventory

_RESTRICTED_USE = {"commercial": "commercial use", "scale": "use past a size of audience without another license"}


def _at(entry: LocalModelEntry, f: LocalFile) -> tuple[Location, ...]:
    return tuple(loc for loc in entry.locations if loc.path == f.path) or (Location(f.path, None, Context.CONFIG),)


def digest_mismatches(entries: Sequence[LocalModelEntry]) -> Iterator[RuleHit]:
    for e in entries:
        for f in e.files:
            if f.digest_check == "mismatch" and f.store_digest:
                yield RuleHit(f"{e.name}:{f.store_digest[:16]}",
                          f"weights of {e.name} are not what the store names them: {f.path} should have SHA-256 "
                          f"{f.store_digest}, its bytes give {f.sha256}", _at(e, f))  # fmt: skip


def unsafe_pickles(entries: Sequence[LocalModelEntry]) -> Iterator[RuleHit]:
    for e in entries:
        for f in e.files:
            if f.unsafe_globals:
                more = len(f.unsafe_globals) - 5
                shown = ", ".join(f.unsafe_globals[:5]) + (f" (+{more})" if more > 0 else "")
                yield RuleHit(f"{e.name}:{f.path.rsplit('/', 1)[-1]}",
                          f"{f.path} ({e.name}) is a pickle that imports {shown}: loading it runs that code",
                          _at(e, f))  # fmt: skip


def restricted_licenses(entries: Sequence[LocalModelEntry]) -> Iterator[RuleHit]:
    for e in entries:
        if not e.license_restricts or not (e.servers or e.used_by):
            continue
        uses = " and ".join(_RESTRICTED_USE.get(r, r) for r in e.license_restricts)
        how = "served by " + ", ".join(sorted({s.server for s in e.servers})) if e.servers else "used by agents"
        yield RuleHit(e.name, f"{e.name} is {how} under {e.facts.license}, whose text restricts {uses}: "
                          f"\"{e.license_quote}\"", e.locations,
                  Severity.LOW if e.license_restricts == ("scale",) else None)  # fmt: skip


def world_writable(entries: Sequence[LocalModelEntry]) -> Iterator[RuleHit]:
    for e in entries:
        paths = [f.path for f in e.files if f.world_writable]
        if e.store_writable:
            paths = [loc.path for loc in e.locations if loc.path not in {f.path for f in e.files}] + paths
        if paths:
            locs = tuple(loc for loc in e.locations if loc.path in paths)
            yield RuleHit(e.name, f"weights of {e.name} can be replaced by any user: {', '.join(paths[:3])} "
                              "world-writable", locs)  # fmt: skip


Finder = Callable[[Sequence[LocalModelEntry]], Iterator[RuleHit]]


def on_inventory(find: Finder) -> Callable[[Inventory], Iterator[RuleHit]]:
    return lambda inv: find(inv.local_models)


# (id, severity, title, help, finder): the kind's FindingRules.
RULES = (
    ("local-weights-digest-mismatch", Severity.HIGH, "Local weights differ from the digest their store names",
     "A store names each weight file by the SHA-256 of its bytes (Ollama blobs, Hugging Face cache blobs); these "
     "bytes give another. The file was changed or damaged after it was pulled: pull it again, and find out what "
     "wrote to the store.", digest_mismatches),
    ("local-pickle-unsafe-globals", Severity.HIGH, "A local weight pickle imports globals beyond weights",
     "A PyTorch checkpoint or pickle imports callables that a weights-only load refuses; loading it with "
     "pickle or torch.load(weights_only=False) runs them. Convert it to safetensors, or load it weights-only.",
     unsafe_pickles),
    ("local-license-restricts-use", Severity.MEDIUM, "A served local model's license restricts its use",
     "The model's license (its own text, quoted) restricts a use, and a server or an agent on this machine uses "
     "it. Check that the use made of it is one the license allows.", restricted_licenses),
    ("local-weights-world-writable", Severity.HIGH, "Local weights anyone may replace",
     "A weight file or a store's record of it is world-writable: any user of the machine can swap the model "
     "every agent using it runs. Make it writable by its owner only.", world_writable),
)  # fmt: skip
