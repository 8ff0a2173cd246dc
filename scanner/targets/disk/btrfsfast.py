"""A btrfs walked at the speed of the others: dissect.btrfs's B-tree cursor reading keys and items with `struct`,
and directories listed from their index items directly.

Every inode, directory entry and extent of a btrfs is found by a binary search of B-tree nodes, and dissect's
cursor parses each key it compares with a cstruct structure, again for every search: nine tenths of a btrfs
walk's time. Here a node's keys are parsed once, all together, and kept for the most recently used nodes; each
tree keeps fewer whole nodes (128, not 8192: 2 MiB of 16 KiB nodes, not 128 MiB) and each subvolume fewer inode
objects (128, not 8192, each with caches of its own): a forked worker holds its own. The layouts are the on-disk
format's (`btrfs_disk_key`: objectid u64, type u8, offset u64; a leaf's `btrfs_item`: key, offset u32, size u32;
a node's `btrfs_key_ptr`: key, blockptr u64, generation u64; after a 101-byte header; a `btrfs_dir_item`: its
location key, transid u64, data_len u16, name_len u16, type u8, then the name), and the values keep the
attribute names dissect's code reads. Installed once, when a disk image is opened.
"""

from __future__ import annotations

import struct
from collections import OrderedDict, namedtuple
from functools import lru_cache
from typing import Any

_HEADER = 101  # len(btrfs_header)
_KEY = struct.Struct("<QBQ")
_ITEM = struct.Struct("<QBQII")  # a leaf's item: its key, then the data's offset and size
_PTR = struct.Struct("<QBQQQ")  # a node's pointer: its key, then the child's address and generation

Key = namedtuple("Key", "objectid type offset")
Item = namedtuple("Item", "key offset size")
KeyPtr = namedtuple("KeyPtr", "key blockptr generation")


_NODES_KEPT = 256
_node_keys: OrderedDict[tuple[int, int], list[Any]] = OrderedDict()  # (tree, node address) -> its keys


def _keys_of(btree: Any, address: int, node: Any, header: Any) -> list[Any]:
    found = _node_keys.get((id(btree), address))
    if found is not None:
        _node_keys.move_to_end((id(btree), address))
        return found
    step = _PTR.size if header.level else _ITEM.size
    count = min(int(header.nritems), max(0, (len(node) - _HEADER) // step))
    found = [Key._make(_KEY.unpack_from(node, _HEADER + step * i)) for i in range(count)]
    _node_keys[(id(btree), address)] = found
    if len(_node_keys) > _NODES_KEPT:
        _node_keys.popitem(last=False)
    return found


def _push(self: Any, address: int, initial_index: int = 0) -> None:
    """dissect's push, with the node's keys parsed once (`_keys` is their list here)."""
    self._path.append((self._node, self._header, self._keys, self._items, self._index))
    self._node, self._header = self.btree._read_node(address)
    self._keys = _keys_of(self.btree, address, self._node, self._header)
    self._items = {}
    self._index = self._header.nritems if initial_index == -1 else initial_index


def _read_key(self: Any, index: int) -> Any:
    return self._keys[index]


def _read_item(self: Any, index: int) -> Any:
    item = self._items.get(index)
    if item is not None:
        return item
    if self._header.level:
        objectid, kind, offset, blockptr, generation = _PTR.unpack_from(self._node, _HEADER + _PTR.size * index)
        item = KeyPtr(Key(objectid, kind, offset), blockptr, generation)
    else:
        objectid, kind, offset, at, size = _ITEM.unpack_from(self._node, _HEADER + _ITEM.size * index)
        item = Item(Key(objectid, kind, offset), at, size)
    self._items[index] = item
    return item


_DIR_ITEM = struct.Struct("<QBQQHHB")
_DIR_INDEX_KEY, _INODE_ITEM_KEY, _ROOT_ITEM_KEY = 96, 1, 132
SUBVOLUME_ROOT = 0  # in a listing, (subvolume, 0) names that subvolume's root directory


def listing(inode: Any) -> dict[str, tuple[int, int]]:
    """A btrfs directory's names, each with (subvolume, inode number), from its index items (as dissect's own
    listing reads them, without an inode object per name)."""
    out: dict[str, tuple[int, int]] = {}
    own = int(inode.subvolume.objectid)
    for _, data in inode.subvolume.tree.cursor().iter(inode.inum, _DIR_INDEX_KEY, 2, ignore_offset=True):
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
    cursor.push = _push
    cursor._read_key = _read_key
    cursor._read_item = _read_item
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
