"""Agent products installed by a native installer (`native` of catalogs/agents.toml `[[agents]]`): the
executable outside any package dir (`~/.local/share/claude/versions/2.1.197`), its install and its model list.

The install is the executable's folder and its version the executable's name when the name is one; or, when
its folder is named by the version (`~/.local/share/cursor-agent/versions/2025.11.25-d5b3271/cursor-agent`), that
folder's parent and name. Its model list is the executable's, read in every window of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scanner.configs.model_lists import model_list
from scanner.detectors.contract import CatalogFiles, Files, Needs, Reading
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.kinds.agents import AgentFileEvidence, AgentPackageEvidence
from scanner.kinds.models import ModelEvidence
from scanner.model import Context
from scanner.textsafe import display_path

_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.\-]+)?")


class NativeAgentDetector:
    name = "agent_native"
    description = "Agent products' native installs: the executable, its version and the model list compiled in"
    needs = Needs((Files(catalog=CatalogFiles.NATIVE_INSTALLS),), Reading.WINDOWS)

    def extract(self, view: FileView) -> Iterator[Evidence]:
        product = view.catalog.native_install(view.entry.path)
        if product is None:
            return
        loc = view.location(None, Context.PACKAGE)
        if view.window is not None and view.window.offset:  # a later window of a big file: only what it ships
            shown = display_path(view.entry.path.rsplit("/", 1)[0])
        else:
            grandparent, parent, _ = view.entry.path.rsplit("/", 2)
            folder, version = grandparent + "/" + parent, view.name if _VERSION.fullmatch(view.name) else None
            if version is None and _VERSION.fullmatch(parent):
                folder, version = grandparent, parent
            shown = display_path(folder)
            yield AgentPackageEvidence(
                product.id, "binary", view.name, version, shown, shown, False, (view.path,), (), loc
            )
        models, named = model_list(view, product)
        yield AgentFileEvidence(product.id, shown, "ships", models, loc, named)
        for name in models:
            yield ModelEvidence(name, loc)
