"""Go build info bytes in the layout the Go >= 1.18 linker writes, for machines without a Go toolchain.

Layout (src/debug/buildinfo/buildinfo.go): a 32-byte header (`\\xff Go buildinf:`, pointer size, flags with
bit 2 = strings inline), then the Go version and the module info as uvarint-prefixed strings; the module
info is wrapped in the 16-byte sentinels cmd/go adds (`modinfo.go`).
"""

from __future__ import annotations

INFO_START = bytes.fromhex("3077af0c9274080241e1c107e6d618e6")
INFO_END = bytes.fromhex("f932433186182072008242104116d8f2")


def uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def go_binary(deps: list[tuple[str, str]], main: str = "example.com/agentd", go: str = "go1.24.4") -> bytes:
    """The `.go.buildinfo` bytes of a program built from `main` with these module dependencies."""
    lines = [f"path\t{main}", f"mod\t{main}\t(devel)\t"]
    lines += [f"dep\t{path}\t{version}\th1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" for path, version in deps]
    lines += ["build\t-buildmode=exe", "build\t-compiler=gc", "build\tCGO_ENABLED=0", "build\tGOARCH=amd64"]
    modinfo = INFO_START + ("\n".join(lines) + "\n").encode() + INFO_END
    header = b"\xff Go buildinf:" + bytes([8, 2]) + b"\0" * 16
    return header + uvarint(len(go)) + go.encode() + uvarint(len(modinfo)) + modinfo
