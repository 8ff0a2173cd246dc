"""Executables and shared objects: the provider client modules, SDKs and strings compiled into them.

Nothing is run. The catalog's code-path grammar finds provider modules (`src/providers/anthropic/
request_flow.rs`) and registry paths (`async-openai-0.29.0`) in the bytes; Go build info and
cargo-auditable data name every module or crate with its version. ASCII strings are already matched in
place by the content detector; UTF-16 strings of PE files are decoded here, bounded, and
matched by the same catalog patterns.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator

from scanner.catalog.matcher import PatternKind
from scanner.detectors.contract import Derived, Files, Needs, Reading
from scanner.fileview.view import FileView
from scanner.formats import auditable, gobuild
from scanner.formats.executables import EXECUTABLE_MAGICS
from scanner.kinds import Evidence
from scanner.kinds.clients import ClientEvidence
from scanner.kinds.sdks import SdkEvidence
from scanner.model import Context, Skip, SkipReason
from scanner.textsafe import decode

_MAX_PATH_HITS = 20_000
_UTF16 = re.compile(rb"(?:[\x20-\x7e]\x00){6,512}")
_MAX_UTF16_STRINGS = 50_000
_MAX_UTF16_BYTES = 4 << 20


class BinaryDetector:
    name = "binaries"
    description = "Executables: provider client modules, Go build info, cargo-auditable data, registry paths"
    needs = Needs((Files(magics=EXECUTABLE_MAGICS),), Reading.WINDOWS)

    def extract(self, view: FileView) -> Iterator[Evidence | Skip | Derived]:
        yield from self._code_paths(view)
        yield from self._go(view)
        if view.window is None or view.window.offset == 0:
            yield from self._auditable(view)  # needs the ELF headers: the head's view only
        yield from self._utf16(view)

    def _code_paths(self, view: FileView) -> Iterator[Evidence | Skip]:
        catalog = view.catalog
        parts: dict[str, set[str]] = defaultdict(set)
        packages: set[tuple[str, str, str]] = set()
        seen: Counter[int] = Counter()
        for hit in view.hits:  # the matcher found them in its one pass (and only those the view's window owns)
            if hit.kind is not PatternKind.CODE_PATH:
                continue
            seen[hit.pattern] += 1
            if seen[hit.pattern] > _MAX_PATH_HITS:
                if seen[hit.pattern] == _MAX_PATH_HITS + 1:
                    detail = f"code paths: matches after the first {_MAX_PATH_HITS} of one grammar not read"
                    yield Skip(view.path, SkipReason.CAP_REACHED, detail)
                continue
            spec, rx = catalog.code_path_rx[hit.pattern]
            m = rx.match(view.data, hit.start)
            if m is None:
                continue
            groups = {k: decode(v) for k, v in m.groupdict().items() if v is not None}
            if spec.kind == "package" and spec.ecosystem:
                packages.add((spec.ecosystem, groups.get("name", ""), groups.get("version", "")))
            elif spec.kind == "module":
                provider = groups.get("provider", "")
                if catalog.module_names.get(provider) == "":
                    continue  # src/providers/mod.rs names no provider
                module = groups.get("module")
                described = catalog.module_names.get(module, module.replace("_", " ")) if module else ""
                parts[provider].update({described} if described else set())
        location = view.location(None, Context.BINARY)
        for provider, components in sorted(parts.items()):
            known = catalog.client_name(provider)
            yield ClientEvidence(
                provider, known.vendor, known.served_via, "compiled", tuple(sorted(components)), location
            )
        for ecosystem, name, version in sorted(packages):
            yield from _sdk(view, ecosystem, name, version)

    def _go(self, view: FileView) -> Iterator[Evidence]:
        lo, hi = _owned(view)
        data, window = view.data, view.window
        header = data.find(gobuild.MAGIC, lo, hi + len(gobuild.MAGIC) - 1)
        if header == -1:
            return
        info = gobuild.parse(data, lo, hi)
        if window is not None and window.read is not None and gobuild.inline_past(data, header):
            # The inline info that follows the header may run past this window: read it from the file, bounded.
            info = gobuild.parse(window.read(window.offset + header, gobuild.SPAN), 0, 1)
        elif (
            window is not None
            and window.read is not None
            and not gobuild.is_inline(data, header)
            and not (info and info.deps)
        ):
            # An older binary points elsewhere: its info lies anywhere in the file (as in a whole read).
            info = gobuild.find_info(window.read, view.entry.size) or info
        if info is None:
            return
        for dep in info.deps:
            yield from _sdk(view, "go", dep.path, dep.version)

    def _auditable(self, view: FileView) -> Iterator[Evidence]:
        window = view.window
        if window is not None and window.read is not None:  # the head of a big binary: its headers are at the end
            found = auditable.crates_at(window.read, view.entry.size)
        else:
            found = auditable.crates(view.data)
        for name, version in found:
            yield from _sdk(view, "cargo", name, version)

    def _utf16(self, view: FileView) -> Iterator[Evidence | Skip | Derived]:
        # PE files keep their strings in UTF-16; in ELF and Mach-O they are rare and the pass costs
        # seconds per large shared object (measured on a pip-installed litellm tree).
        if not view.head.startswith(b"MZ"):
            return
        strings: list[bytes] = []
        total = 0
        lo, hi = _owned(view)
        for n, m in enumerate(_UTF16.finditer(view.data, lo)):
            if m.start() >= hi:
                break  # the next window's
            if n >= _MAX_UTF16_STRINGS or total >= _MAX_UTF16_BYTES:
                # Matched already, in place, is only ASCII: what is past the cap is recorded as not read.
                detail = (
                    f"UTF-16 strings: only the first {n} ({total} bytes) decoded "
                    f"(caps {_MAX_UTF16_STRINGS} strings, {_MAX_UTF16_BYTES >> 20} MiB)"
                )
                yield Skip(view.path, SkipReason.CAP_REACHED, detail)
                break
            text = m.group()[::2]
            strings.append(text)
            total += len(text)
        if not strings:
            return
        # The decoded strings are still the binary's: matched as its own bytes by the pattern matchers.
        yield Derived(b"\n".join(strings), Context.BINARY, cut_label=None)


def _owned(view: FileView) -> tuple[int, int]:
    """The part of the view's bytes where a match may start (all of them unless the view is a window)."""
    window = view.window
    return (0, len(view.data)) if window is None else (window.owned_from, window.owned_to)


def _sdk(view: FileView, ecosystem: str, name: str, version: str) -> Iterator[Evidence]:
    spec = view.catalog.sdk(ecosystem, name)
    if spec is not None:
        location = view.location(None, Context.BINARY)
        yield SdkEvidence(ecosystem, spec.name, version or None, True, view.path, location)


DETECTOR = BinaryDetector()
