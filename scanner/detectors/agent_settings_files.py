"""Agent products' settings files (`settings` of catalogs/agents.toml `[[agents]]`): what each user's file selects.

The model(s) it selects, the route, the base URL, the MCP servers and the credentials (which leave as hashes),
each under the key paths the catalog names (`scanner.configs.product_settings`), in JSON, TOML, YAML, env files,
a one-value text file (`llm`'s `default_model.txt`) and an editor's global-state SQLite (`state.vscdb`).
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.configs.product_settings import read_settings
from scanner.detectors.base import Reading
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.model import Context, Skip

_MAX_SETTINGS_BYTES = 4 << 20
_MAX_STATE_BYTES = 64 << 20  # an editor's SQLite state: binary, and larger than a config
_EDITOR_STATE = (".vscdb",)
_NOT_SETTINGS = (Context.PACKAGE, Context.BINARY, Context.TEST, Context.DOCS)
# A one-value text file (`default_model.txt`) reads as prose to the context rules: its glob says more.
_NOT_TEXT_SETTINGS = (Context.PACKAGE, Context.BINARY, Context.TEST)


class AgentSettingsDetector:
    name = "agent_settings"
    description = "Agent products' settings files: the models, route, base URL, MCP servers and keys each user set"
    reading = Reading.WHOLE

    def wants(self, view: FileView) -> bool:
        cat, path, size = view.catalog, view.entry.path, view.entry.size
        if view.name.endswith(_EDITOR_STATE):
            return size <= _MAX_STATE_BYTES and bool(cat.agent_settings_at(path))
        if size <= _MAX_SETTINGS_BYTES and (found := cat.agent_settings_at(path)):
            text = any(sf.format == "text" for _, sf in found)
            return view.context not in (_NOT_TEXT_SETTINGS if text else _NOT_SETTINGS)
        return False

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        for product, settings in view.catalog.agent_settings_at(view.entry.path):
            yield from read_settings(view, product, settings)
