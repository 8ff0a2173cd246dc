"""A container image's layers applied top-down in one pass into one tree, as a runtime would mount them.

From the top layer down, a path is visible unless an upper layer already defined it, deleted it (`.wh.NAME`),
made an ancestor opaque (`.wh..wh..opq`), or put a non-directory at an ancestor (a file hides a directory below
it). A layer's own deletions apply only to the layers below it. Tar names are untrusted: absolute names and `..`
stay inside the image, devices and FIFOs are listed but never read, hard links share their target's bytes
(and inode: read once). Nothing is extracted: a file's bytes stay a range of its layer's tar stream.
"""

from __future__ import annotations

import stat
import tarfile
from dataclasses import dataclass

from scanner.model import Skip, SkipReason
from scanner.targets.base import DecompressionLimit
from scanner.targets.container.errors import ImageError
from scanner.targets.container.layers import LayerBytes, layer_file
from scanner.targets.memfs import Node, directory, regular, special, symlink
from scanner.textsafe import display_path

WHITEOUT = ".wh."
OPAQUE = ".wh..wh..opq"
MAX_MEMBERS = 5_000_000  # per image: a tar of tiny members cannot exhaust memory
MAX_DEPTH = 512


@dataclass(frozen=True)
class LayerSlice:
    """A member's bytes: a range of its layer's (inflated) tar stream."""

    layer: LayerBytes
    start: int

    def read_at(self, offset: int, size: int) -> bytes:
        return self.layer.read_at(self.start + offset, size)


@dataclass(frozen=True)
class Layer:
    digest: str
    data: LayerBytes


def normalise(name: str) -> tuple[str, ...]:
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


def _members(layer: Layer, skips: list[Skip]) -> dict[tuple[str, ...], tarfile.TarInfo]:
    """The layer's members by path, the last of a repeated name winning (as extraction would)."""
    found: dict[tuple[str, ...], tarfile.TarInfo] = {}
    try:
        with tarfile.open(fileobj=layer_file(layer.data), mode="r:") as tar:
            for member in tar:
                if len(found) >= MAX_MEMBERS:
                    skips.append(Skip(layer.digest, SkipReason.CAP_REACHED, f"more than {MAX_MEMBERS} members"))
                    break
                parts = normalise(member.name)
                if len(parts) > MAX_DEPTH:
                    skips.append(
                        Skip(
                            display_path("/" + "/".join(parts[:8])) + "/…",
                            SkipReason.CAP_REACHED,
                            f"deeper than {MAX_DEPTH} levels in layer {layer.digest}",
                        )
                    )
                    continue
                found[parts] = member
    except DecompressionLimit as exc:
        skips.append(Skip(layer.digest, SkipReason.DECOMPRESSION_LIMIT, exc.detail))
    except (tarfile.TarError, EOFError) as exc:
        skips.append(Skip(layer.digest, SkipReason.READ_ERROR, f"layer tar stream: {exc}"))
    except ImageError as exc:
        skips.append(Skip(layer.digest, SkipReason.READ_ERROR, str(exc)))
    return found


def _node(member: tarfile.TarInfo, layer: Layer) -> Node | None:
    mode, uid, gid, mtime = member.mode, member.uid, member.gid, int(member.mtime)
    if member.isdir():
        return directory(mode, uid, gid, mtime)
    if member.isreg():
        return regular(LayerSlice(layer.data, member.offset_data), member.size, mode, uid, gid, mtime, layer.digest)
    if member.issym():
        return symlink(member.linkname, uid, gid, mtime, layer.digest)
    if member.ischr():
        return special(stat.S_IFCHR, mode, uid, gid, layer.digest)
    if member.isblk():
        return special(stat.S_IFBLK, mode, uid, gid, layer.digest)
    if member.isfifo():
        return special(stat.S_IFIFO, mode, uid, gid, layer.digest)
    return None  # hard links are resolved after every layer is known


def squash(layers: list[Layer]) -> tuple[Node, list[Skip]]:
    """The visible tree of `layers` (bottom first, as manifests list them) and what could not be read."""
    root = directory()
    skips: list[Skip] = []
    defined: set[tuple[str, ...]] = set()  # paths an upper layer gave an entry (or deleted)
    hidden_below: set[tuple[str, ...]] = set()  # paths whose descendants upper layers hid
    implied: set[tuple[str, ...]] = set()  # ancestors of upper entries: directories, whatever a lower layer says
    links: list[tuple[tuple[str, ...], tarfile.TarInfo, int]] = []
    files_by_layer: list[dict[tuple[str, ...], Node]] = [{} for _ in layers]
    for index in range(len(layers) - 1, -1, -1):
        layer = layers[index]
        new_defined: set[tuple[str, ...]] = set()
        new_hidden: set[tuple[str, ...]] = set()
        for parts, member in _members(layer, skips).items():
            name = parts[-1] if parts else ""
            if name == OPAQUE:
                new_hidden.add(parts[:-1])
                continue
            if name.startswith(WHITEOUT):
                gone = (*parts[:-1], name[len(WHITEOUT) :])
                new_defined.add(gone)
                new_hidden.add(gone)
                continue
            if not parts or parts in defined or any(parts[:i] in hidden_below for i in range(len(parts))):
                continue
            if parts in implied and not member.isdir():
                continue
            new_defined.add(parts)
            implied.update(parts[:i] for i in range(1, len(parts)))
            if not member.isdir():
                new_hidden.add(parts)
            if member.islnk():
                links.append((parts, member, index))
                continue
            node = _node(member, layer)
            if node is None:
                continue
            if node.content is not None:
                files_by_layer[index][parts] = node
            _put(root, parts, node)
        defined |= new_defined
        hidden_below |= new_hidden
    for parts, member, index in links:
        target = _link_target(normalise(member.linkname), files_by_layer, index)
        if target is None:
            skips.append(
                Skip(
                    display_path("/" + "/".join(parts)),
                    SkipReason.SYMLINK_BROKEN,
                    "hard link to a member the image does not hold",
                )
            )
            continue
        node = Node(
            target.mode,
            member.uid,
            member.gid,
            target.size,
            int(member.mtime),
            content=target.content,
            origin=layers[index].digest,
            ino=target.ino,
        )  # one inode: read once, located twice
        _put(root, parts, node)
    return root, skips


def _put(root: Node, parts: tuple[str, ...], node: Node) -> None:
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


def _link_target(parts: tuple[str, ...], by_layer: list[dict[tuple[str, ...], Node]], index: int) -> Node | None:
    """A hard link's target: the file at that path in its own layer or a lower one (links never cross upward)."""
    for lower in range(index, -1, -1):
        found = by_layer[lower].get(parts)
        if found is not None:
            return found
    return None
