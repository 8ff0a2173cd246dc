"""A running process's environment, read as the env file it effectively is.

Each variable goes through the same interpretation as an assignment in an env file or a systemd unit
(`scanner.configs.interpret.interpret`), and its value through the catalogs' patterns, so a key, a base
URL, a model override or a kill switch means the same thing wherever it is set. Credentials leave this
module only as their redacted form and hash.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from scanner.catalog import Catalog
from scanner.catalog.matcher import PatternKind
from scanner.configs.interpret import interpret
from scanner.formats.config import ConfigItem
from scanner.kinds import Evidence
from scanner.kinds.credentials import CredentialEvidence, credential_evidence
from scanner.kinds.endpoints import EndpointEvidence
from scanner.kinds.kill_switches import KillSwitchEvidence
from scanner.kinds.models import ModelEvidence
from scanner.kinds.processes import ProcessEnvVar
from scanner.model import Context, Location
from scanner.textsafe import decode

MAX_VALUE_BYTES = 64 << 10  # a variable longer than this is data, not configuration
MAX_SHOWN = 200
_NEARBY = 256


@dataclass(frozen=True)
class EnvReading:
    evidence: tuple[Evidence, ...]  # goes into the inventory, located at /proc/PID/environ
    variables: tuple[ProcessEnvVar, ...]  # the LLM-related variables, for the process entry


def environ_location(pid: int) -> Location:
    return Location(f"/proc/{pid}/environ", None, Context.ENV)


def read_environment(pid: int, environ: Sequence[tuple[str, str]], catalog: Catalog) -> EnvReading:
    loc = environ_location(pid)
    evidence: list[Evidence] = []
    variables: list[ProcessEnvVar] = []
    for name, value in environ:
        found = list(_interpret(name, value, catalog, loc))
        var = _variable(name, value, found, catalog)
        evidence += found
        if var is not None:
            variables.append(var)
    return EnvReading(tuple(evidence), tuple(sorted(variables, key=lambda v: v.name)))


def settings_evidence(
    pairs: Sequence[tuple[str, str]], catalog: Catalog, loc: Location, env: bool = True
) -> tuple[Evidence, ...]:
    """Name/value settings read as an env file's (or, with `env` False, a config's) assignments, located at `loc`:
    a container image config's ENV, labels and command-line flags."""
    return tuple(ev for name, value in pairs for ev in _interpret(name, value, catalog, loc, env))


def _interpret(name: str, value: str, catalog: Catalog, loc: Location, env: bool = True) -> Iterator[Evidence]:
    if len(value) > MAX_VALUE_BYTES:
        return
    item = ConfigItem((name,), value, None, None, env=env)
    yield from interpret([item], catalog, lambda _line, _env: loc, None)
    data = value.encode("utf-8", "surrogateescape")
    for hit in catalog.matcher.scan(data):
        text = decode(hit.text)
        if hit.kind is PatternKind.CREDENTIAL:
            spec = catalog.credentials[hit.pattern]
            if catalog.is_placeholder(text):
                continue
            window = f"{name}={value}"[: _NEARBY * 2].lower()
            if spec.nearby and not any(w.lower() in window for w in spec.nearby):
                continue
            yield credential_evidence(text, spec.type, spec.vendor, spec.prefix, loc, None)
        elif hit.kind is PatternKind.HOST:
            yield EndpointEvidence(text.lower(), None, loc)
        elif hit.kind is PatternKind.MODEL:
            yield ModelEvidence(text, loc)


def _variable(name: str, value: str, found: list[Evidence], catalog: Catalog) -> ProcessEnvVar | None:
    """What the process entry shows of one variable; never a credential's value."""
    creds = [e for e in found if isinstance(e, CredentialEvidence)]
    if creds:
        best = max(creds, key=lambda c: len(c.redacted))
        return ProcessEnvVar(name, "credential", best.redacted)
    spec = catalog.env_var(name)
    if spec is not None and spec.role == "credential":
        return ProcessEnvVar(name, "credential", None)  # a placeholder or reference: shown as absent
    shown = _shown(value, catalog)
    for ev in found:
        if isinstance(ev, KillSwitchEvidence):
            return ProcessEnvVar(name, "kill_switch", shown, ev.state)
    for ev in found:
        if isinstance(ev, EndpointEvidence):
            return ProcessEnvVar(name, "base_url", ev.url or ev.host)
    if any(isinstance(ev, ModelEvidence) for ev in found):
        return ProcessEnvVar(name, "model", shown)
    if spec is not None:
        return ProcessEnvVar(name, spec.role, shown)
    return None


def _shown(value: str, catalog: Catalog) -> str:
    text = catalog.scrub(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"
