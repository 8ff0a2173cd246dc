"""Agent products installed by a native installer (`native` of catalogs/agents.toml `[[agents]]`): the
executable outside any package dir (`~/.local/share/claude/versions/2.1.197`), its install and its model list.

The install is the executable's folder and its version the executable's name when the name is one; or, when
its folder is named by the version (`~/.local/share/cursor-agent/versions/2025.11.25-d5b3271/cursor-agent`), that
folder's parent and name. Its model list is the executable's, read in every window of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scanner.detectors.agent_files import ships
from scanner.detectors.contract import CatalogFiles, Files, Needs, Reading
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.kinds.agents import AgentPackageEvidence
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
        folder, version = _install(view.entry.path)
        shown = display_path(folder)
        if view.window is None or not view.window.offset:  # the head; a later window gives only what it ships
            yield AgentPackageEvidence(
                product.id, "binary", view.name, version, shown, shown, False, (view.path,), (), loc
            )
        yield from ships(view, product, shown, loc)


def _install(path: str) -> tuple[str, str | None]:
    """(install folder, version) of a native executable: its folder and its name when the name is a version; else
    its folder's parent and name when the folder is named by the version; else its folder and no version."""
    folder, _, name = path.rpartition("/")
    if _VERSION.fullmatch(name):
        return folder, name
    above, _, parent = folder.rpartition("/")
    if _VERSION.fullmatch(parent):
        return above, parent
    return folder, None


DETECTOR = NativeAgentDetector()
