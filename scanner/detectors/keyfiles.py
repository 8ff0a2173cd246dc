"""Key files: a file that holds nothing but one token (`/etc/proxy/keys/azure.key`).

Formats the catalogs know are found by the content detector wherever they are; this catches the
prefix-less keys (Azure's 32 hex, Mistral's 32 alphanumerics) by the shape and name of the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scanner.catalog.matcher import PatternKind
from scanner.detectors.contract import Files, Needs
from scanner.fileview.contexts import classify
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.kinds.credentials import credential_evidence
from scanner.model import Context

# Named as a key (`azure.key`, `openai_api_key`, `token.txt`), or placed in a folder of keys; one token, so small.
_KEY_ENDS = (".key", "token", "secret", "api_key", "api-key", "apikey")
_KEY_NAMES = tuple(f"*{end}" for end in _KEY_ENDS)
_KEY_TEXT_NAMES = tuple(f"*{end}.txt" for end in _KEY_ENDS)
_MAX_KEY_FILE = 4096
_NOT_KEYS = frozenset({Context.PACKAGE, Context.BINARY, Context.DOCS})
_TOKEN = re.compile(r"^[A-Za-z0-9_\-.+/=:]{16,512}$")
_WORD = re.compile(r"[a-z0-9]+")


class KeyFileDetector:
    name = "keyfiles"
    description = "Files holding a single prefix-less API key, named or placed like key files"
    needs = Needs((
        Files(names=_KEY_NAMES, fold_case=True, max_size=_MAX_KEY_FILE, not_in=_NOT_KEYS),
        # `.txt` makes any file prose to the context rules: a key file so named is placed as its name without it.
        Files(names=_KEY_TEXT_NAMES, fold_case=True, max_size=_MAX_KEY_FILE, not_in=_NOT_KEYS - {Context.DOCS},
              accept=lambda view: classify(view.entry.path[:-4], view.data[:8192]) not in _NOT_KEYS),
        Files(under=("keys", "secrets", "credentials", "tokens"), max_size=_MAX_KEY_FILE, not_in=_NOT_KEYS),
    ))  # fmt: skip

    def extract(self, view: FileView) -> Iterator[Evidence]:
        if any(h.kind is PatternKind.CREDENTIAL for h in view.hits):
            return  # a known format: the content detector reports it with its type
        token = view.text.strip()
        if not _TOKEN.match(token) or view.catalog.is_placeholder(token):
            return
        vendor = route = None
        for word in _WORD.findall(view.name.lower()):
            # A vendor's name (`anthropic.key`), or a route's (`azure.key`: Microsoft's key, for the azure route).
            route = word if word in view.catalog.route_vendor else None
            vendor = word if word in view.catalog.vendor_names else view.catalog.route_vendor.get(word)
            if vendor:
                break
        kind = f"{vendor}-api-key" if vendor else "api-key"
        location = view.location(1, Context.CONFIG)
        yield credential_evidence(token, kind, vendor, "", location, view.meta, route)


DETECTOR = KeyFileDetector()
