"""A btrfs walked at the speed of the others: dissect.btrfs's B-tree cursor reading keys and items with `struct`,
and directories listed from their index items directly.

Every inode, directory entry and extent of a btrfs is found by a binary search of B-tree nodes, and dissect's
cursor parses each key it compares with a cstruct structure, again for every search: nine tenths of a btrfs
walk's time. Here a node's entries are parsed once, all together, and kept for the most recently used nodes; each
tree keeps fewer whole nodes (128, not 8192: 2 MiB of 16 KiB nodes, not 128 MiB) and each subvolume fewer inode
objects (128, not 8192, each with caches of its own): a forked worker holds its own. The layouts are the on-disk
format's (`btrfs_disk_key`: objectid u64, type u8, offset u64; a leaf's `btrfs_item`: key, offset u32, size u32;
a node's `btrfs_key_ptr`: key, blockptr u64, generation u64; after a 101-byte header; a `btrfs_dir_item`: its
location key, transid u64, data_len u16, name_len u16, type u8, then the name), and the values keep the
attribute names dissect's code reads. Installed once, when a disk image is opened.

A walk asks for the items of one inode after another (its inode item when it is listed, its extent items when it
is read), and neighbouring inodes' items sit in the same leaf: the last leaves reached are kept (64 of all trees
together, found by tree and key range), and an exact lookup (`find`) or a run of one inode's items of one type
(`Cursor.iter`) that a kept leaf holds whole (the leaf has a key before the run and one after it) is answered from
that leaf; one that no kept leaf holds goes down from the root through the parsed entries to the leaf it belongs
in, once. Anything else, or nothing found there, is dissect's own search.
"""

from __future__ import annotations

import struct
from bisect import bisect_left, bisect_right, insort
from collections import OrderedDict, namedtuple
from functools import lru_cache
from itertools import count
from typing import Any

from scanner.targets.disk.recent import Recent

_HEADER = 101  # len(btrfs_header)
_ITEM = struct.Struct("<QBQII")  # a leaf's item: its key, then the data's offset and size
_PTR = struct.Struct("<QBQQQ")  # a node's pointer: its key, then the child's address and generation

Key = namedtuple("Key", "objectid type offset")
Item = namedtuple("Item", "key offset size")
KeyPtr = namedtuple("KeyPtr", "key blockptr generation")
# A node's entries as `struct` gives them, all at once: (objectid, type, offset, then the item's data offset and
# size, or the child's address and generation). Plain tuples sort as their keys do.
_Entry = tuple[int, int, int, int, int]

_NODES_KEPT = 256  # nodes whose parsed entries are kept, of every tree together
_LEAVES_KEPT = 64  # leaves kept for lookups one leaf answers (1 MiB of 16 KiB leaves), of every tree together
_trees = count(1)  # a number for each tree, never given twice (an object's id can be, once it is gone)


def _tree(btree: Any) -> int:
    found = btree.__dict__.get("_fast_tree")
    if found is None:
        found = btree.__dict__["_fast_tree"] = next(_trees)
    return found  # type: ignore[no-any-return]


class _KeptLeaves:
    """The last leaves reached, of any tree, found by the tree and the range of keys each holds."""

    def __init__(self) -> None:
        self._held: OrderedDict[tuple[int, int], tuple[Any, list[_Entry]]] = OrderedDict()  # (tree, address)
        self._firsts: list[tuple[int, tuple[int, int, int], int]] = []  # (tree, first key, address), sorted

    def add(self, tree: int, address: int, node: Any, entries: list[_Entry]) -> None:
        if (tree, address) in self._held:
            self._held.move_to_end((tree, address))
            return
        self._held[(tree, address)] = (node, entries)
        insort(self._firsts, (tree, entries[0][:3], address))
        if len(self._held) > _LEAVES_KEPT:
            (old_tree, old_address), (_, old) = self._held.popitem(last=False)
            self._firsts.remove((old_tree, old[0][:3], old_address))

    def holding(self, tree: int, key: tuple[int, int, int]) -> tuple[Any, list[_Entry]] | None:
        """The kept leaf of `tree` whose keys run from at most `key` to at least `key`, if one does."""
        at = bisect_right(self._firsts, (tree, key, _AFTER_ANY)) - 1
        if at < 0 or self._firsts[at][0] != tree:
            return None
        found = self._held[(tree, self._firsts[at][2])]
        return found if key <= found[1][-1] else None


_AFTER_ANY = 1 << 64  # sorts after every address: (tree, key, _AFTER_ANY) follows every (tree, key, address)
_leaves = _KeptLeaves()
_entries: Recent[tuple[int, int], list[_Entry]] = Recent(_NODES_KEPT)  # (tree, node address) -> its entries


def _entries_of(btree: Any, address: int, node: Any, header: Any) -> list[_Entry]:
    key = (_tree(btree), address)
    found = _entries.get(key)
    if found is None:
        layout = _PTR if header.level else _ITEM
        held = min(int(header.nritems), max(0, (len(node) - _HEADER) // layout.size))
        found = list(layout.iter_unpack(node[_HEADER : _HEADER + layout.size * held]))
        _entries.put(key, found)
    return found


def _push(self: Any, address: int, initial_index: int = 0) -> None:
    """dissect's push, with the node's entries parsed once (`_keys` is their list here); a leaf is kept."""
    self._path.append((self._node, self._header, self._keys, self._items, self._index))
    self._node, self._header = self.btree._read_node(address)
    self._keys = _entries_of(self.btree, address, self._node, self._header)
    self._items = {}
    self._index = self._header.nritems if initial_index == -1 else initial_index
    if not self._header.level and self._keys:
        _leaves.add(_tree(self.btree), address, self._node, self._keys)


def _read_key(self: Any, index: int) -> Any:
    return Key._make(self._keys[index][:3])


def _read_item(self: Any, index: int) -> Any:
    item = self._items.get(index)
    if item is None:
        objectid, kind, offset, a, b = self._keys[index]
        item = (KeyPtr if self._header.level else Item)(Key(objectid, kind, offset), a, b)
        self._items[index] = item
    return item


def leaf_items(btree: Any, objectid: int, kind: int, offset: int | None, exact: bool) -> list[Any] | None:
    """The items (objectid, kind, offset) (`exact`), or (objectid, kind, any offset from `offset`), with their data,
    from a kept leaf that holds them all: a key not after the first and a key after the last. None when no kept
    leaf does, or it holds none of them (dissect's search then decides)."""
    start = (objectid, kind, offset or 0)
    found = _leaves.holding(_tree(btree), start)
    if found is None:
        return None
    node, entries = found
    first = index = bisect_left(entries, start)
    while index < len(entries):
        entry = entries[index]
        if entry[0] != objectid or entry[1] != kind or (exact and entry[2] != offset):
            break
        index += 1
    else:
        return None  # the run may go on in the next leaf
    out = []
    for o, t, f, at, size in entries[first:index]:
        out.append((Item(Key(o, t, f), at, size), node[_HEADER + at : _HEADER + at + size]))
    return out or None


def _descend(btree: Any, key: tuple[int, int, int]) -> None:
    """The leaf where `key` belongs, read into the tree's kept leaves: from the root, in each node the last child
    whose first key is not after it (as dissect's search goes down), through the nodes' parsed entries."""
    address = btree.root_offset
    for _ in range(_MAX_LEVELS):
        node, header = btree._read_node(address)
        entries = _entries_of(btree, address, node, header)
        if not entries:
            return
        if not header.level:
            _leaves.add(_tree(btree), address, node, entries)
            return
        address = entries[max(0, bisect_right(entries, (*key, _AFTER_ANY)) - 1)][3]


_MAX_LEVELS = 8  # BTRFS_MAX_LEVEL: a deeper chain of nodes is no tree mkfs or the kernel writes


def _answered(btree: Any, objectid: int, kind: int, offset: int | None, exact: bool) -> list[Any] | None:
    """`leaf_items` from a kept leaf, or from the leaf a descent reads."""
    found = leaf_items(btree, objectid, kind, offset, exact)
    if found is None:
        _descend(btree, (objectid, kind, offset or 0))
        found = leaf_items(btree, objectid, kind, offset, exact)
    return found


def _find(self: Any, objectid: int | None = None, type: int | None = None, offset: int | None = None) -> Any:
    """dissect's `BTree.find`, answered from a leaf that holds the item; dissect's search decides the rest."""
    if objectid is not None and type is not None:
        found = _answered(self, objectid, type, offset, offset is not None)
        if found:
            return found[0]
    return _dissect["find"](self, objectid, type, offset)


def _iter(self: Any, objectid: int | None = None, type: int | None = None, offset: int | None = None,
          ignore_offset: bool = False) -> Any:
    """dissect's `Cursor.iter`, answered from a leaf that holds the whole run; dissect's cursor does the rest."""
    if objectid is not None and type is not None:
        found = _answered(self.btree, objectid, type, offset, offset is not None and not ignore_offset)
        if found:
            return iter(found)
    return _dissect["iter"](self, objectid, type, offset, ignore_offset)


def run_of(btree: Any, objectid: int, kind: int, start: int = 0) -> Any:
    """The items (objectid, kind, from offset `start`) with their data, as `btree.cursor().iter(objectid, kind,
    start, ignore_offset=True)` gives them, without a cursor where one leaf holds them all."""
    if not _dissect:  # not installed: dissect's own cursor, for a layout this does not know
        return btree.cursor().iter(objectid, kind, start, ignore_offset=True)
    found = _answered(btree, objectid, kind, start, False)
    if found:
        return found
    return _dissect["iter"](btree.cursor(), objectid, kind, start, True)


_dissect: dict[str, Any] = {}  # dissect's own find and iter, once replaced


_DIR_ITEM = struct.Struct("<QBQQHHB")
_DIR_INDEX_KEY, _INODE_ITEM_KEY, _ROOT_ITEM_KEY = 96, 1, 132
SUBVOLUME_ROOT = 0  # in a listing, (subvolume, 0) names that subvolume's root directory


def listing(inode: Any) -> dict[str, tuple[int, int]]:
    """A btrfs directory's names, each with (subvolume, inode number), from its index items (as dissect's own
    listing reads them, without an inode object per name)."""
    out: dict[str, tuple[int, int]] = {}
    own = int(inode.subvolume.objectid)
    for _, data in run_of(inode.subvolume.tree, inode.inum, _DIR_INDEX_KEY, 2):
        objectid, kind, _, _, _, name_len, _ = _DIR_ITEM.unpack_from(data)
        name = bytes(data[_DIR_ITEM.size : _DIR_ITEM.size + name_len]).decode("utf-8", "surrogateescape")
        if kind == _INODE_ITEM_KEY:
            out[name] = (own, objectid)
        elif kind == _ROOT_ITEM_KEY:
            out[name] = (objectid, SUBVOLUME_ROOT)
    return out


def install() -> None:
    """Replace the cursor's push and its two readers, and each tree's node cache (once; a dissect whose layouts
    differ is left as it is)."""
    from dissect.btrfs import btrfs, tree
    from dissect.btrfs.c_btrfs import c_btrfs

    cursor = getattr(tree, "Cursor", None)
    if cursor is None or getattr(cursor, "_fast_keys", False):
        return
    sizes = (len(c_btrfs.btrfs_header), len(c_btrfs.btrfs_item), len(c_btrfs.btrfs_key_ptr))
    if sizes != (_HEADER, _ITEM.size, _PTR.size):  # a layout this does not know: dissect's readers stay
        return
    _dissect.update(find=tree.BTree.find, iter=cursor.iter)
    cursor.push = _push
    cursor._read_key = _read_key
    cursor._read_item = _read_item
    cursor.iter = _iter
    tree.BTree.find = _find
    cursor._fast_keys = True
    original_tree = tree.BTree.__init__

    def fewer_nodes(self: Any, *args: Any, **kwargs: Any) -> None:
        original_tree(self, *args, **kwargs)
        self._read_node = lru_cache(_TREE_NODES_KEPT)(self._read_node.__wrapped__)

    tree.BTree.__init__ = fewer_nodes
    original_subvolume = btrfs.Subvolume.__init__

    def fewer_inodes(self: Any, *args: Any, **kwargs: Any) -> None:
        original_subvolume(self, *args, **kwargs)
        self.inode = lru_cache(_INODES_KEPT)(self.inode.__wrapped__)

    btrfs.Subvolume.__init__ = fewer_inodes


_TREE_NODES_KEPT = 128  # whole 16 KiB nodes a tree keeps: 2 MiB
_INODES_KEPT = 128  # inode objects a subvolume keeps (each with its own caches): dissect keeps 8192
