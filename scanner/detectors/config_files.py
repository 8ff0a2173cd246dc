"""Structured configs: models by key (in-house ones too), base URLs, credentials, kill switches.

Each file is parsed once on its view (`FileView.config`, by `scanner/formats/config/`); what its flattened items
mean is `scanner.configs.interpret`, shared with the live audit's environments.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from scanner.catalog.matcher import PatternKind
from scanner.configs.interpret import interpret
from scanner.detectors.contract import Files, Needs
from scanner.fileview.config_parse import MAX_CONFIG_BYTES, config_parser, norm_key
from scanner.fileview.contexts import is_comment_line
from scanner.fileview.view import FileView
from scanner.formats import config as fmt
from scanner.kinds import Evidence
from scanner.kinds.credentials import CredentialEvidence
from scanner.kinds.kill_switches import KillSwitchEvidence
from scanner.model import Context, Location, Skip, SkipReason
from scanner.textsafe import display_path

_IDS = (PatternKind.MODEL, PatternKind.HOSTED)
_CONFIGS = frozenset({Context.CONFIG, Context.ENV, Context.SOURCE})  # a shell script's assignments are settings too


class ConfigDetector:
    name = "config"
    description = "JSON, YAML, TOML, INI, HCL, .env, systemd, Lua tables: models, base URLs, secrets, kill switches"
    # A config file is known by its context, then its name or head (`config_parser`); it is parsed once, on the view.
    needs = Needs((Files(contexts=_CONFIGS, accept=lambda view: config_parser(view) is not None),))

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        lua = view.name.endswith(".lua")
        if lua and not any(h.kind in _IDS for h in view.hits):
            return  # a Lua file is code first: its tables are read only when it names a model
        parsed = view.config
        assert parsed is not None
        if parsed.skip is not None:
            yield parsed.skip
        items = parsed.items  # none when the file was too big to parse by key

        def locate(line: int | None, env: bool) -> Location:
            ctx = Context.ENV if env else view.context
            return view.location(line, ctx)

        # The product's own MCP server containers for this file (VS Code's `servers`): their URLs are tools'.
        mcp = frozenset(norm_key(c) for spec in view.catalog.agent_configs_at(view.entry.path) for c in spec.containers)
        evidence = interpret(items, view.catalog, locate, view.meta, mcp)
        if view.context is Context.SOURCE and not lua:
            # A shell script's models and keys are the source detector's; its kill switches are settings. A Lua
            # file's tables are its settings (a plugin spec's `providers.ollama.model`).
            evidence = (ev for ev in evidence if isinstance(ev, KillSwitchEvidence))
        elif view.session_read:
            # A session log or a capture is no settings file: the session reader says which of its models served
            # and which were only mentioned. A secret under a key name in it is still a credential.
            evidence = (ev for ev in evidence if isinstance(ev, CredentialEvidence))
        yield from evidence
        if parsed.parser is fmt.parse_systemd:
            yield from self._environment_files(view, items)

    def _environment_files(self, view: FileView, items: Sequence[fmt.ConfigItem]) -> Iterator[Evidence | Skip]:
        """`EnvironmentFile=` is resolved inside the target root and read as an env file."""
        for item in items:
            if item.path[-1:] != ("EnvironmentFile",):
                continue
            inside = item.value.lstrip("-").strip()
            data = view.read_path(inside, MAX_CONFIG_BYTES) if inside.startswith("/") else None
            if data is None:
                continue
            text = data.decode("utf-8", "backslashreplace")
            lines = text.splitlines()

            def locate(line: int | None, env: bool, _p: str = inside, _l: list[str] = lines) -> Location:
                commented = line is not None and 0 < line <= len(_l) and is_comment_line(_l[line - 1])
                return Location(display_path(_p), line, Context.COMMENT if commented else Context.ENV)

            try:
                env_items = fmt.parse_env(text)
            except fmt.BudgetExceeded as cut:
                env_items = cut.items
                yield Skip(display_path(inside), SkipReason.BUDGET_EXCEEDED, f"ENV: {cut.detail}")
            yield from interpret(env_items, view.catalog, locate, None)


DETECTOR = ConfigDetector()
