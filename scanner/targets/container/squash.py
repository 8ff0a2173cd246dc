"""A container image's layers applied top-down in one pass into one tree, as a runtime would mount them.

From the top layer down, a path is visible unless an upper layer already defined it, deleted it (`.wh.NAME`),
made an ancestor opaque (`.wh..wh..opq`), or put a non-directory at an ancestor (a file hides a directory below
it). A layer's own deletions apply only to the layers below it. Tar names are untrusted: absolute names and `..`
stay inside the image, devices and FIFOs are listed but never read, hard links share their target's bytes
(and inode: read once).

Each layer is read once, forward, in its own tar order (`LayerStream`), by a thread of its own that starts with the
others (`layer_source.LayerSource`): a file of a plain layer stays a byte range of its blob; a compressed layer is
inflated into a temporary file as the squash parses it there, and its files stay byte ranges of that file, so the
walk never inflates a layer twice. A layer that fails part-way (a damaged or cut stream, a digest that does not
match, a bomb past the cap) keeps what it gave before, is a recorded skip (and so is the file it failed inside), and
the layers above it are marked as read on an incomplete base.
"""

from __future__ import annotations

import stat
import tarfile
from dataclasses import dataclass, field
from typing import cast

from scanner.model import PART_COMPLETE, PART_INCOMPLETE, PART_ON_INCOMPLETE_BASE, Skip, SkipReason
from scanner.targets.base import DecompressionLimit
from scanner.targets.container.blobs import Range
from scanner.targets.container.layer_source import LayerSource, Slots
from scanner.targets.container.layers import Digest, LayerFailure
from scanner.targets.container.spool import Spool
from scanner.targets.container.tarheader import FastTarInfo
from scanner.targets.images import ImageError
from scanner.targets.memfs import Content, Node, directory, regular, special, symlink
from scanner.textsafe import display_path

WHITEOUT = ".wh."
OPAQUE = ".wh..wh..opq"
MAX_MEMBERS = 5_000_000  # per image: a tar of tiny members cannot exhaust memory
MAX_DEPTH = 512

_Parts = tuple[str, ...]


@dataclass(frozen=True)
class SquashLayer:
    digest: str  # the layer's id as shown: its blob digest, or an old docker save's diff_id
    blob: Range | None  # None: the image does not hold it (`missing` says why)
    check: Digest | None = None  # what the blob (or its tar stream) must hash to
    missing: str = ""


@dataclass(frozen=True)
class LayerState:
    status: str = PART_COMPLETE
    detail: str = ""


def normalise(name: str) -> _Parts:
    """A tar member name as inside-image components: `/`, `./` and `..` can never leave the root."""
    parts: list[str] = []
    for p in name.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            if parts:
                parts.pop()
            continue
        parts.append(p)
    return tuple(parts)


@dataclass
class _Link:
    """A hard link: its node is placed when met (it hides lower layers), its bytes given once all are read."""

    parts: _Parts
    target: _Parts
    index: int
    node: Node


@dataclass
class _Squash:
    """The tree so far (the layers above the current one, and its own entries), and what upper layers deleted.
    Which layer gave a node is on the node (`layer`), so no set of every path is kept."""

    spool: Spool
    root: Node = field(default_factory=directory)
    skips: list[Skip] = field(default_factory=list)
    deleted: set[_Parts] = field(default_factory=set)  # whiteouts of upper layers: these and all below
    opaque: set[_Parts] = field(default_factory=set)  # directories whose lower-layer contents upper layers hid
    links: list[_Link] = field(default_factory=list)
    members: int = 0


def squash(layers: list[SquashLayer], spool: Spool) -> tuple[Node, list[Skip], list[LayerState]]:
    """The visible tree of `layers` (bottom first, as manifests list them), what could not be read, and what
    became of each layer (bottom first)."""
    state = _Squash(spool)
    states = [LayerState() for _ in layers]
    sources: dict[int, LayerSource | Exception] = {}
    try:
        _start(layers, spool, sources)
        for index in range(len(layers) - 1, -1, -1):
            failure = _apply(state, layers[index], index, sources[index])
            if failure is not None:
                states[index] = LayerState(PART_INCOMPLETE, failure)
                for above in range(index + 1, len(layers)):
                    if states[above].status == PART_COMPLETE:
                        states[above] = LayerState(PART_ON_INCOMPLETE_BASE, f"on layer {layers[index].digest}")
    finally:
        for source in sources.values():
            if isinstance(source, LayerSource):
                source.stop()  # none is left running, whatever ended the squash
    _resolve_links(state)
    return state.root, state.skips, states


def _start(layers: list[SquashLayer], spool: Spool, out: dict[int, LayerSource | Exception]) -> None:
    """Each layer's source into `out`, its thread started, top layer first; or why it cannot be read (raised in
    `_apply`). Filled as they start, so whatever interrupts this stops the threads already started."""
    slots = Slots()
    for index in range(len(layers) - 1, -1, -1):
        layer = layers[index]
        try:
            if layer.blob is None:
                raise ImageError(layer.missing)
            out[index] = LayerSource(layer.blob, layer.check, spool, slots)
        except (ImageError, OSError) as exc:
            out[index] = exc


@dataclass
class _Pass:
    """One layer being read: what it deletes and hides for the layers below (applied once it is read)."""

    layer: SquashLayer
    index: int
    source: LayerSource
    deleted: set[_Parts] = field(default_factory=set)
    opaque: set[_Parts] = field(default_factory=set)
    copying: str = ""  # the file whose bytes were being copied if the stream failed
    last: tuple[_Parts, Node, int] | None = None  # the last file placed in the spool, and where its bytes end


def _apply(state: _Squash, layer: SquashLayer, index: int, source: LayerSource | Exception) -> str | None:
    """One layer read through once; returns what failed, if anything (also recorded as a skip)."""
    reason, detail = SkipReason.READ_ERROR, ""
    now: _Pass | None = None
    try:
        if isinstance(source, Exception):
            raise source
        now = _Pass(layer, index, source)
        with tarfile.open(fileobj=source.reader(), mode="r:", tarinfo=FastTarInfo) as tar:
            for member in tar:
                tar.members = []  # type: ignore[attr-defined]  # a TarFile keeps every header otherwise
                state.members += 1
                if state.members > MAX_MEMBERS:
                    state.skips.append(Skip(layer.digest, SkipReason.CAP_REACHED, f"more than {MAX_MEMBERS} members"))
                    break
                _member(state, now, member, tar)
        source.finish()
    except DecompressionLimit as exc:
        reason, detail = SkipReason.DECOMPRESSION_LIMIT, exc.detail
    except LayerFailure as exc:
        detail = exc.detail
    except (tarfile.TarError, EOFError) as exc:
        detail = f"the layer's tar ends early or is damaged (truncated archive): {exc}"
    except ImageError as exc:
        detail = str(exc)
    except OSError as exc:
        detail = f"cannot keep its files in a temporary file: {exc.strerror or exc}"
    finally:
        if now is not None:
            now.source.stop()
            state.deleted |= now.deleted
            state.opaque |= now.opaque
    if not detail:
        return None
    cut = _cut_short(state, now) if now is not None else ""
    if cut:
        state.skips.append(Skip(cut, reason, f"its layer {layer.digest} failed inside it: {detail}"))
    state.skips.append(Skip(layer.digest, reason, detail + "; files it deleted from the layers below may show"))
    return detail


def _cut_short(state: _Squash, now: _Pass) -> str:
    """The file the layer failed inside (copied out when it failed, or whose bytes run past what its thread wrote),
    taken out of the tree; its path shown, or "" if none was."""
    if now.copying:
        return now.copying
    if now.last is None or now.source.plain:
        return ""
    parts, node, end = now.last
    if end <= now.source.written:
        return ""
    parent, found = _lookup(state.root, parts)
    if parent is not None and found is node:
        del parent.children[parts[-1]]
    return display_path("/" + "/".join(parts))


def _member(state: _Squash, now: _Pass, member: tarfile.TarInfo, tar: tarfile.TarFile) -> None:
    parts = normalise(member.name)
    if len(parts) > MAX_DEPTH:
        shown = display_path("/" + "/".join(parts[:8])) + "/…"
        detail = f"deeper than {MAX_DEPTH} levels in layer {now.layer.digest}"
        state.skips.append(Skip(shown, SkipReason.CAP_REACHED, detail))
        return
    name = parts[-1] if parts else ""
    if name == OPAQUE:
        now.opaque.add(parts[:-1])
        return
    if name.startswith(WHITEOUT):
        now.deleted.add((*parts[:-1], name[len(WHITEOUT) :]))
        return
    if not parts or not _visible(state, parts, now.index, member.isdir()):
        return
    if member.islnk():
        node = Node(stat.S_IFREG | (member.mode & 0o7777), member.uid, member.gid, mtime=int(member.mtime),
                    origin=now.layer.digest, layer=now.index)
        state.links.append(_Link(parts, normalise(member.linkname), now.index, node))
        _put(state.root, parts, node)
        return
    content: Content | None = None
    if member.isreg():
        if not member.issparse():
            content = now.source.content(member.offset_data)
        else:  # its holes are not in the tar: its data copied out, at their offsets
            now.copying = display_path("/" + "/".join(parts))
            source = tar.extractfile(member)
            assert source is not None  # a regular member always has a file object
            content = state.spool.copy(source, member.size, cast("list[tuple[int, int]]", member.sparse))
            now.copying = ""
    placed = _node(member, now.layer, content)
    if placed is not None:
        placed.layer = now.index
        _put(state.root, parts, placed)
        if content is not None:
            now.last = (parts, placed, member.offset_data + member.size)


def _visible(state: _Squash, parts: _Parts, index: int, is_dir: bool) -> bool:
    """Whether a member of layer `index` shows: not deleted or hidden by an upper layer (a whiteout, an opaque
    directory, a non-directory at one of its ancestors), not already given by one (an implied directory takes a
    lower layer's directory entry, for its owner and mode). The same layer's repeat of a name replaces it."""
    if state.deleted or state.opaque:
        if parts in state.deleted:
            return False
        for i in range(len(parts)):
            if parts[:i] in state.deleted or parts[:i] in state.opaque:
                return False
    node = state.root
    for part in parts[:-1]:
        child = node.children.get(part)
        if child is None:
            return True
        if not stat.S_ISDIR(child.mode):
            return child.layer == index  # a file of an upper layer hides what is below it; its own is replaced
        node = child
    found = node.children.get(parts[-1])
    if found is None or found.layer == index:
        return True
    return found.layer == -1 and is_dir  # an implied directory; a non-directory never replaces it


def _node(member: tarfile.TarInfo, layer: SquashLayer, content: Content | None) -> Node | None:
    mode, uid, gid, mtime = member.mode, member.uid, member.gid, int(member.mtime)
    if member.isdir():
        return directory(mode, uid, gid, mtime)
    if member.isreg() and content is not None:
        return regular(content, member.size, mode, uid, gid, mtime, layer.digest)
    if member.issym():
        return symlink(member.linkname, uid, gid, mtime, layer.digest)
    kinds = ((member.ischr(), stat.S_IFCHR), (member.isblk(), stat.S_IFBLK), (member.isfifo(), stat.S_IFIFO))
    for matches, kind in kinds:
        if matches:
            return special(kind, mode, uid, gid, layer.digest)
    return None


def _put(root: Node, parts: _Parts, node: Node) -> None:
    parent = root
    for part in parts[:-1]:
        child = parent.children.get(part)
        if child is None or not stat.S_ISDIR(child.mode):
            child = directory()  # implied by a deeper member; a lower layer's entry may still set its metadata
            parent.children[part] = child
        parent = child
    old = parent.children.get(parts[-1])
    if old is not None and stat.S_ISDIR(old.mode) and stat.S_ISDIR(node.mode):
        node.children = old.children  # an implied directory takes its own entry's metadata, keeping children
    parent.children[parts[-1]] = node


def _lookup(root: Node, parts: _Parts) -> tuple[Node | None, Node | None]:
    """(parent, node) at `parts` in the tree; None where a component is missing."""
    parent = root
    for part in parts[:-1]:
        child = parent.children.get(part)
        if child is None or not stat.S_ISDIR(child.mode):
            return None, None
        parent = child
    return parent, parent.children.get(parts[-1]) if parts else None


def _resolve_links(state: _Squash) -> None:
    """A hard link's bytes are its target's (one inode: read once), a file of its own layer or a lower one;
    links to links are followed by resolving until nothing changes. One that stays unresolved is removed."""
    pending = state.links
    while pending:
        left = []
        for link in pending:
            _, target = _lookup(state.root, link.target)
            if target is None or target.content is None or not stat.S_ISREG(target.mode) or \
                    not 0 <= target.layer <= link.index:
                left.append(link)  # unresolvable, or a link to a link not resolved yet
            else:
                link.node.size, link.node.content, link.node.ino = target.size, target.content, target.ino
        if len(left) == len(pending):
            break
        pending = left
    for link in pending:
        parent, node = _lookup(state.root, link.parts)
        if parent is not None and node is link.node:
            del parent.children[link.parts[-1]]
        state.skips.append(Skip(display_path("/" + "/".join(link.parts)), SkipReason.SYMLINK_BROKEN,
                                "hard link to a member the image does not hold"))
