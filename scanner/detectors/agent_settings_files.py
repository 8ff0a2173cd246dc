"""Agent products' settings files (`settings` of catalogs/agents.toml `[[agents]]`): what each user's file selects.

The model(s) it selects, the route, the base URL, the MCP servers and the credentials (which leave as hashes),
each under the key paths the catalog names (`scanner.configs.product_settings`), in JSON, TOML, YAML, env files,
a one-value text file (`llm`'s `default_model.txt`) and an editor's global-state SQLite (`state.vscdb`).
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.configs.product_settings import read_settings
from scanner.detectors.contract import CatalogFiles, Files, Needs
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.model import Context, Skip

_MAX_SETTINGS_BYTES = 4 << 20
_MAX_STATE_BYTES = 64 << 20  # an editor's SQLite state: binary, and larger than a config
_NOT_SETTINGS = frozenset({Context.PACKAGE, Context.BINARY, Context.TEST})


class AgentSettingsDetector:
    name = "agent_settings"
    description = "Agent products' settings files: the models, route, base URL, MCP servers and keys each user set"
    needs = Needs((
        Files(names=("*.vscdb",), catalog=CatalogFiles.AGENT_SETTINGS, max_size=_MAX_STATE_BYTES),
        Files(catalog=CatalogFiles.AGENT_SETTINGS, max_size=_MAX_SETTINGS_BYTES, not_in=_NOT_SETTINGS,
              accept=lambda view: view.context is not Context.DOCS or _text_settings(view)),
    ))  # fmt: skip

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        for product, settings in view.catalog.agent_settings_at(view.entry.path):
            yield from read_settings(view, product, settings)


def _text_settings(view: FileView) -> bool:
    """A one-value text file (`default_model.txt`) reads as prose to the context rules: its glob says more."""
    return any(sf.format == "text" for _, sf in view.catalog.agent_settings_at(view.entry.path))


DETECTOR = AgentSettingsDetector()
