"""`make bench` (images part): MB/s of a scan of a qcow2 disk image against the same tree scanned as a directory.

The tree is the bench tree (`.bench/tree`, made by scripts/bench.py); the image is an ext4 filesystem of it
(`mkfs.ext4 -d`), in a GPT disk, converted to qcow2, cached under `.bench/`. Needs e2fsprogs, fdisk, qemu-img
and the images extra; says what is missing otherwise.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / ".bench"
TREE = BENCH / "tree"
MIB = 1 << 20


def build_image() -> Path:
    image = BENCH / "tree.qcow2"
    if image.exists() and image.stat().st_mtime >= TREE.stat().st_mtime:
        return image
    size = sum(p.stat().st_size for p in TREE.rglob("*") if p.is_file() and not p.is_symlink())
    fs, raw = BENCH / "tree.ext4", BENCH / "tree.raw"
    fs_size = int(size * 1.3) + 256 * MIB
    subprocess.run(["mkfs.ext4", "-q", "-F", "-d", str(TREE), str(fs), f"{fs_size // MIB}M"], check=True)
    with open(raw, "wb") as f:
        f.truncate(fs_size + 4 * MIB)
    subprocess.run(["sfdisk", "-q", str(raw)], input="label: gpt\nstart=2048, type=linux\n", text=True, check=True)
    subprocess.run(["dd", f"if={fs}", f"of={raw}", "bs=1M", "seek=1", "conv=notrunc,sparse", "status=none"],
                   check=True)
    subprocess.run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(image)], check=True)
    fs.unlink()
    raw.unlink()
    return image


def timed(target: Path) -> tuple[float, int]:
    started = time.monotonic()
    out = BENCH / "images-bench.json"
    subprocess.run([sys.executable, "-m", "scanner", "scan", str(target), "-f", "json", "-o", str(out), "-q"],
                   check=True)
    import json

    stats = json.loads(out.read_text())["stats"]
    return time.monotonic() - started, int(stats["bytes_read"])


def main() -> None:
    missing = [t for t in ("mkfs.ext4", "sfdisk", "qemu-img") if shutil.which(t) is None]
    try:
        import dissect.target  # noqa: F401
    except ImportError:
        missing.append("the images extra")
    if missing or not TREE.exists():
        print(f"images: skipped ({', '.join(missing) or 'no .bench/tree: run scripts/bench.py first'})")
        return
    image = build_image()
    directory_s, directory_b = timed(TREE)
    image_s, image_b = timed(image)
    print(f"images: the bench tree as a qcow2 disk image ({image.stat().st_size // MIB} MiB on disk)")
    print(f"  directory : {directory_s:6.1f} s  {directory_b / MIB / directory_s:6.1f} MB/s")
    print(f"  qcow2     : {image_s:6.1f} s  {image_b / MIB / image_s:6.1f} MB/s  "
          f"({image_s / directory_s:.2f}x the directory's time)")


if __name__ == "__main__":
    main()
