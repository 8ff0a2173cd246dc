"""All loaded catalog files as one queryable knowledge base.

Catalogs know vendors, not file formats: `identify` names a model id, `host_info` an API host, `sdk` a package,
`env_var` an environment variable. The matcher is built once from the same data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from scanner.catalog.agent_products import AgentProductIndex
from scanner.catalog.anyof import FirstOf
from scanner.catalog.globs import glob_regex, literal_name
from scanner.catalog.matcher import Matcher, PatternKind, Rule
from scanner.catalog.package_names import package_key
from scanner.catalog.schema import (
    AgentConfigSpec,
    CatalogError,
    CatalogFile,
    ClientName,
    CodePath,
    CredentialSpec,
    EnvVarSpec,
    Family,
    FingerprintSpec,
    HostedForm,
    HostSpec,
    KillSwitchSpec,
    ModelSpec,
    ProcessSpec,
    SdkSpec,
    SourceSignature,
)
from scanner.catalog.sections import CatalogSection
from scanner.hosts import filled_slots
from scanner.model import CatalogRef
from scanner.secrets import scrub
from scanner.vocab import CatalogStatus, SwitchState


@dataclass(frozen=True)
class Identity:
    canonical: str | None
    vendor: str | None
    family: str | None
    served_via: str | None
    base_model: str | None
    catalog: CatalogStatus
    lifecycle: str | None


def _rx(pattern: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise CatalogError(f"{where}: bad regex {pattern!r}: {exc}") from None


def _rx_bytes(pattern: str, where: str) -> re.Pattern[bytes]:
    try:
        return re.compile(pattern.encode())
    except re.error as exc:
        raise CatalogError(f"{where}: bad regex {pattern!r}: {exc}") from None


UNKNOWN = Identity(None, None, None, None, None, CatalogStatus.UNKNOWN, None)
_MAX_FORM_DEPTH = 3


class Catalog(AgentProductIndex):
    def __init__(self, files: list[CatalogFile]) -> None:
        self.files = files
        self.refs = tuple(CatalogRef(f.name, f.version, f.origin) for f in files)
        self._sections: dict[str, Any] = {}  # each kind's catalog section, merged when first asked
        self._index_models(files)
        self._index_routes(files)
        self._index_credentials(files)
        self._index_config_words(files)
        # Answers kept per string asked: a scan asks about the same names again and again.
        self._identity_cache: dict[str, Identity] = {}
        self._scrubbed: dict[str, str] = {}
        self._hosted: dict[str, bool] = {}
        self._kill_keys: dict[str, bool] = {}
        self._deployment_names: dict[str, bool] = {}
        self._index_code(files)
        self._index_agent_configs(files)
        self._index_products(files)

    def _index_models(self, files: list[CatalogFile]) -> None:
        """Vendors, model families (with their patterns) and model ids with their aliases."""
        self.families: list[Family] = [x for f in files for x in f.families]
        self.vendor_names = {vid: name for f in files for vid, name in f.vendors}
        # A route's company, when its catalog file names exactly one vendor (azure -> microsoft).
        self.route_vendor = {
            form.route: f.vendors[0][0]
            for f in files
            if len(f.vendors) == 1
            for form in f.hosted_forms
            if form.route not in ("direct", "self-hosted")  # not a company's route
        }
        self._family = {fam.id: fam for fam in self.families}
        self._family_rx = [(fam, _rx(fam.pattern, fam.id)) for fam in self.families]
        self._any_family = FirstOf([rx for _, rx in self._family_rx])  # as `_any_form`: most ids are no family's
        self._longest_family = max((fam.longest for fam in self.families), default=-1)
        self._models: dict[str, ModelSpec] = {}
        for f in files:
            for m in f.models:
                for name in (m.id, *m.aliases):
                    self._models.setdefault(name.lower(), m)

    def _index_routes(self, files: list[CatalogFile]) -> None:
        """How a model is reached: hosted forms of its id, API hosts, SDK packages and environment variables."""
        self.hosted_forms: list[HostedForm] = [x for f in files for x in f.hosted_forms]
        self.hosts: list[HostSpec] = [x for f in files for x in f.hosts]
        # Highest priority first; ties keep catalog order, so the result never depends on hashing.
        order = sorted(range(len(self.hosted_forms)), key=lambda i: -self.hosted_forms[i].priority)
        self._forms = [
            (self.hosted_forms[i], _rx(self.hosted_forms[i].form, self.hosted_forms[i].route)) for i in order
        ]
        self._any_form = FirstOf([rx for _, rx in self._forms])  # one match of their union: most ids are none
        self._host_rx = [(h, _rx(h.pattern, "host")) for h in self.hosts]
        self._sdks: dict[tuple[str, str], SdkSpec] = {}
        for f in files:
            for s in f.sdks:
                self._sdks.setdefault((s.ecosystem, package_key(s.ecosystem, s.name)), s)
        self._env: dict[str, EnvVarSpec] = {}
        for f in files:
            for e in f.env_vars:
                self._env.setdefault(e.name.upper(), e)

    def _index_credentials(self, files: list[CatalogFile]) -> None:
        """Credential formats (each pair a format names must exist), kill switches and session fingerprints."""
        self.credentials: list[CredentialSpec] = [x for f in files for x in f.credentials]
        self.kill_switches: list[KillSwitchSpec] = [x for f in files for x in f.kill_switches]
        self.fingerprints: list[FingerprintSpec] = [x for f in files for x in f.fingerprints]
        self._credential_rx = [_rx(c.pattern, c.type) for c in self.credentials]
        types = {c.type for c in self.credentials}
        for c in self.credentials:
            if unknown := sorted(set(c.pairs_with) - types):
                raise CatalogError(f"credential {c.type}: pairs_with names no credential format: {unknown}")
        self._kill_rx = [_rx(k.pattern, "kill switch") for k in self.kill_switches]

    def _index_config_words(self, files: list[CatalogFile]) -> None:
        """The words configs and processes are read by: process roles, tasks, config keys, switch values, route
        names and placeholders."""
        self._process_rx = [(p, _rx(p.pattern, f"process {p.role}")) for f in files for p in f.processes]
        self._task_rx = [(t.task, _rx(t.pattern, f"task {t.task}")) for f in files for t in f.tasks]
        ks = dict.fromkeys(k for f in files for k in f.config_keys)  # names in order, the first file's first
        self._ordered_keys = {k: tuple(dict.fromkeys(n for f in files for n in f.config_keys.get(k, ()))) for k in ks}
        self.config_keys = {k: frozenset(v) for k, v in self._ordered_keys.items()}
        self._switch_on = frozenset(v for f in files for v in f.switch_values.get("on", ()))
        self._switch_off = frozenset(v for f in files for v in f.switch_values.get("off", ()))
        self._route_names: dict[str, str] = {}
        for f in files:
            for route, spellings in f.route_names.items():
                for spelling in (route, *spellings):
                    self._route_names.setdefault(spelling.replace("_", "-"), route)
        self._placeholders = [_rx(f.placeholders.pattern, f.origin) for f in files if f.placeholders]

    def _index_code(self, files: list[CatalogFile]) -> None:
        """What source code gives away: code paths, source signatures, module names and HTTP client names."""
        self.code_paths: list[CodePath] = [x for f in files for x in f.code_paths]
        self.code_path_rx = [(c, _rx_bytes(c.pattern, "code path")) for c in self.code_paths]
        self.source_signatures: list[SourceSignature] = [x for f in files for x in f.source_signatures]
        self.module_names: dict[str, str] = {}
        for f in files:
            for k, v in f.module_names.items():
                self.module_names.setdefault(k, v)
        self._client_names: dict[str, ClientName] = {}
        for f in files:
            for cn in f.client_names:
                self._client_names.setdefault(cn.name.lower(), cn)

    def _index_agent_configs(self, files: list[CatalogFile]) -> None:
        self.agent_configs: list[AgentConfigSpec] = [x for f in files for x in f.agent_configs]
        # Every file of a scan is asked about: index the globs by the file name they require, so most
        # paths are answered by one dict lookup; globs ending in a wildcard are tried on every path.
        self._agent_by_name: dict[str, list[tuple[int, AgentConfigSpec, re.Pattern[str]]]] = {}
        self._agent_any: list[tuple[int, AgentConfigSpec, re.Pattern[str]]] = []
        for i, ac in enumerate(self.agent_configs):
            entry = (i, ac, glob_regex(ac.path))
            file_name = literal_name(ac.path)
            if file_name is None:
                self._agent_any.append(entry)
            else:
                self._agent_by_name.setdefault(file_name, []).append(entry)

    def section(self, section: CatalogSection[Any, Any]) -> Any:
        """A kind's own part of the catalog, merged over the loaded files once (`CatalogSection.of`)."""
        merged = self._sections.get(section.name)
        if merged is None:
            parts = [f.sections[section.name] for f in self.files if section.name in f.sections]
            merged = self._sections.setdefault(section.name, section.merge(parts))
        return merged

    # --- the matcher ------------------------------------------------------------------------------

    @cached_property
    def matcher(self) -> Matcher:
        return Matcher(self.search_rules())

    def search_rules(self) -> list[Rule]:
        """Every pattern the matcher searches for, in its order."""
        rules = [Rule(PatternKind.MODEL, i, f.pattern) for i, f in enumerate(self.families)]
        rules += [Rule(PatternKind.HOSTED, i, h.find) for i, h in enumerate(self.hosted_forms) if h.find is not None]
        rules += [Rule(PatternKind.HOST, i, h.pattern) for i, h in enumerate(self.hosts)]
        rules += [Rule(PatternKind.CREDENTIAL, i, c.pattern) for i, c in enumerate(self.credentials)]
        rules += [Rule(PatternKind.KILL_SWITCH, i, k.pattern) for i, k in enumerate(self.kill_switches)]
        rules += [Rule(PatternKind.SIGNATURE, i, s.pattern) for i, s in enumerate(self.source_signatures)]
        # Found in the same pass as the rest (one regex pass each over every executable cost half the match).
        rules += [Rule(PatternKind.CODE_PATH, i, c.pattern) for i, c in enumerate(self.code_paths)]
        return rules

    # --- models -----------------------------------------------------------------------------------

    def identify(self, name: str) -> Identity:
        """What the catalogs know of a model id as written (`us.anthropic.claude-opus-4-7`, `muse-3`)."""
        cached = self._identity_cache.get(name)
        if cached is None:
            cached = self._identify(name, 0)
            if len(self._identity_cache) < 100_000:
                self._identity_cache[name] = cached
        return cached

    def _identify(self, name: str, depth: int) -> Identity:
        spec = self._models.get(name.lower())
        if spec is not None:
            return self._known(spec)
        found = self._any_form.match(name) if depth < _MAX_FORM_DEPTH else None
        if found is not None:
            form, m = self._forms[found[0]][0], found[1]
            groups = m.groupdict()
            inner_text = groups.get("model") or groups.get("deployment")
            inner = self._identify(inner_text, depth + 1) if inner_text else UNKNOWN
            if inner_text and groups.get("snapshot"):
                # `claude-opus-4-5@20251101` names the dated snapshot when the catalog lists it.
                dated = self._identify(f"{inner_text}-{groups['snapshot']}", depth + 1)
                inner = dated if dated.catalog == CatalogStatus.KNOWN else inner
            return Identity(
                canonical=inner.canonical,
                vendor=inner.vendor or form.vendor or groups.get("vendor"),
                family=inner.family,
                served_via=form.route,
                # The model the form names: the listed id, else the family id as written (`qwen3.6-27b`
                # of `qwen/qwen3.6-27b:thinking`), so its spellings are one model.
                base_model=inner.canonical or inner.base_model or (
                    inner_text if inner.catalog == CatalogStatus.FAMILY else None),
                catalog=inner.catalog,
                lifecycle=inner.lifecycle,
            )
        # Families before the first whose pattern matches are none of the id's, whatever their length.
        found = self._any_family.match(name) if len(name) <= self._longest_family else None
        for fam, rx in self._family_rx[found[0] :] if found is not None else ():
            # An id longer than any its family's grammar names is no id of it (a crafted 32 KB `gpt-5.111…`).
            if len(name) <= fam.longest and rx.fullmatch(name):
                return Identity(None, fam.vendor, fam.id, None, None, CatalogStatus.FAMILY, None)
        return UNKNOWN

    def _known(self, spec: ModelSpec) -> Identity:
        fam = self._family.get(spec.family)
        vendor = fam.vendor if fam else None
        return Identity(spec.id, vendor, spec.family, None, None, CatalogStatus.KNOWN, spec.lifecycle)

    def model_spec(self, canonical: str) -> ModelSpec | None:
        return self._models.get(canonical.lower())

    def model_card(self, name: str, family: str | None) -> tuple[str | None, str | None]:
        """(task, architecture family) of a model id: the task its id's words name (`gpt-image-1`), else its
        family's; the architecture its family's. None where the catalogs do not say."""
        fam = self._family.get(family) if family else None
        task = next((t for t, rx in self._task_rx if rx.fullmatch(name.lower())), fam.task if fam else None)
        return task, fam.architecture if fam else None

    def is_hosted_form(self, token: str) -> bool:
        # Asked for every model hit of every file: the same few tokens recur, so the answer is kept.
        known = self._hosted.get(token)
        if known is None:
            known = self._any_form.match(token) is not None
            if len(self._hosted) < 100_000:
                self._hosted[token] = known
        return known

    def names_deployment(self, token: str) -> bool:
        """True when `token` is a hosted form that names a deployment (`azure/<name>`): any name is one."""
        # Asked for every candidate cut of a packed run that no catalog identifies: the answer is kept.
        known = self._deployment_names.get(token)
        if known is None:
            found = self._any_form.match(token)
            known = found is not None and bool(found[1].groupdict().get("deployment"))
            if len(self._deployment_names) < 100_000:
                self._deployment_names[token] = known
        return known

    def looks_like_model(self, text: str) -> bool:
        """True when the catalogs recognise `text` as a model id in any form."""
        return self.identify(text).catalog != CatalogStatus.UNKNOWN or self.is_hosted_form(text)

    # --- everything else --------------------------------------------------------------------------

    def host_info(self, host: str) -> HostSpec | None:
        host = host.lower().rstrip(".")
        spec = next((spec for spec, rx in self._host_rx if rx.fullmatch(host)), None)
        filled = None if spec else filled_slots(host)  # a template's `https://<your-resource>.openai.azure.com`
        return self.host_info(filled) if filled is not None else spec

    def sdk(self, ecosystem: str, name: str) -> SdkSpec | None:
        key = package_key(ecosystem, name)
        spec = self._sdks.get((ecosystem, key))
        if spec is None and ecosystem == "go":
            # Go modules carry a major-version suffix: github.com/openai/openai-go/v3.
            spec = self._sdks.get((ecosystem, re.sub(r"/v\d+$", "", key)))
        return spec

    def client_name(self, name: str) -> ClientName:
        """The vendor and route a provider name in code means: a catalog alias, a vendor id or a route."""
        key = name.lower()
        known = self._client_names.get(key)
        if known is not None:
            return known
        if key in self.vendor_names:
            return ClientName(name, key, None)
        if key in self.route_vendor:
            return ClientName(name, self.route_vendor[key], key)
        return ClientName(name)

    def env_var(self, name: str) -> EnvVarSpec | None:
        return self._env.get(name.upper())

    def is_kill_switch_key(self, key: str) -> bool:
        # Asked for every key of every config item and of every word pair of a comment: the answer is kept.
        known = self._kill_keys.get(key)
        if known is None:
            known = any(rx.fullmatch(key) for rx in self._kill_rx)
            if len(self._kill_keys) < 100_000:
                self._kill_keys[key] = known
        return known

    def mentions_kill_switch(self, prose: str) -> bool:
        """True when free text (a comment) names a kill switch: `# live kill switch: …`."""
        words = re.findall(r"[A-Za-z0-9]+", prose)
        candidates = words + [f"{a}_{b}" for a, b in zip(words, words[1:], strict=False)]
        return any(self.is_kill_switch_key(c) for c in candidates)

    def process_roles(self, command: str) -> list[ProcessSpec]:
        """The roles a running program plays, from its executable and command line (`vllm serve …`)."""
        return [spec for spec, rx in self._process_rx if rx.search(command)]

    def scrub(self, text: str) -> str:
        """`text` with every credential a catalog recognises replaced by its redacted form."""
        done = self._scrubbed.get(text)
        if done is None:
            done = scrub(text, self._credential_rx)
            if len(self._scrubbed) < 100_000:  # the same names and URLs recur across thousands of files
                self._scrubbed[text] = done
        return done

    def switch_state(self, value: str) -> SwitchState:
        """What a kill switch's value means: the catalogs list the spellings of on and off."""
        v = value.strip().lower()
        if v in self._switch_on:
            return SwitchState.ON
        if v in self._switch_off:
            return SwitchState.OFF
        return SwitchState.UNKNOWN

    def credential_rx(self, index: int) -> re.Pattern[str]:
        """The compiled pattern of the catalog's credential format at `index`."""
        return self._credential_rx[index]

    def key_format(self, value: str) -> CredentialSpec | None:
        """The catalogued credential format a whole value has (`sk-ant-api03-…`), whatever key holds it; formats
        known only by the key that names them (an AWS secret) never match a bare value."""
        if not 16 <= len(value) <= 512 or " " in value:
            return None
        for spec, rx in zip(self.credentials, self._credential_rx, strict=True):
            if spec.prefix and value.startswith(spec.prefix) and rx.fullmatch(value):
                return spec
        return None

    def is_placeholder(self, value: str) -> bool:
        return any(rx.search(value) for rx in self._placeholders)

    def route_named(self, value: str) -> str | None:
        """The route a provider type or name in a config stands for (`vertexai` -> vertex, `anthropic` ->
        direct, `ollama` -> self-hosted); None for a name the catalogs do not know (a gateway's own id)."""
        v = value.strip().lower().replace("_", "-")
        if v in self._route_names:
            return self._route_names[v]
        if v in self.vendor_names:
            return "direct"
        return None

    def keys(self, kind: str) -> frozenset[str]:
        return self.config_keys.get(kind, frozenset())

    def ordered_keys(self, kind: str) -> tuple[str, ...]:
        return self._ordered_keys.get(kind, ())
