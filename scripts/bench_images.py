"""`make bench` (images part): one real-part root scanned as a directory and as every kind of image, each one's
time and peak memory (PSS summed over all scan processes) printed beside the directory's.

The root is the eval's `debian-agent` corpus (a Debian bookworm minbase from debootstrap with real SDK installs,
`.eval/debian-agent/root`, built by `make eval`), read only. The images, cached under `.bench/images/`:
- qcow2 of a GPT disk with one ext4 partition (`mkfs.ext4 -d`), and the same disk as vmdk (monolithicSparse),
  vhdx and raw (sparse), converted by `qemu-img`;
- qcow2 of a GPT disk whose LVM volume holds xfs (LVM metadata written with the driver off, the xfs filesystem
  filled through a loop mount: needs root and the kernel's xfs);
- a raw btrfs filesystem (`mkfs.btrfs --rootdir`);
- OCI layouts of three layers (the OS, /opt, the rest), each tar in a shuffled order, gzip and zstd;
- a `docker save` archive of the same three layers, plain (`<id>/layer.tar`, `manifest.json`).
What a step needs and lacks is said, and that image is left out. Each image is scanned right after a scan of the
directory, `BENCH_PAIRS` (1) pairs in turn: on a shared machine the ratio within a pair is what holds, so the
median pair's ratio is the figure. Goals: <= 2x the directory's time, <= 300 MiB. `BENCH_IMAGES=xfs,zstd` measures
only the images whose label holds one of those words.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from bench_measure import Run, timed

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / ".eval" / "debian-agent" / "root"
IMAGES = REPO / ".bench" / "images"
VERSION = "1"
MIB = 1 << 20
JOBS = 2
PAIRS = int(os.environ.get("BENCH_PAIRS", "1"))
# Only the images whose label holds one of these words (`BENCH_IMAGES=xfs,zstd`): a re-measure of a few kinds.
ONLY = tuple(w.strip().lower() for w in os.environ.get("BENCH_IMAGES", "").split(",") if w.strip())


def _run(*cmd: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), check=True, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


def _tree_bytes(root: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(root):
        for name in files:
            st = os.lstat(os.path.join(dirpath, name))
            total += st.st_blocks * 512
    return total


def _missing(*tools: str) -> str | None:
    gone = [t for t in tools if shutil.which(t) is None]
    return f"{', '.join(gone)} not installed" if gone else None


def _gpt(raw: Path, size: int, kind: str) -> int:
    """A raw disk of `size` bytes with one GPT partition of `kind` at 1 MiB; returns its offset."""
    with open(raw, "wb") as f:
        f.truncate(size)
    subprocess.run(["sfdisk", "-q", str(raw)], input=f"label: gpt\nstart=2048, type={kind}\n", text=True, check=True)
    return MIB


def qcow2_ext4(out: Path) -> str | None:
    if why := _missing("mkfs.ext4", "sfdisk", "qemu-img"):
        return why
    fs, raw = out.with_suffix(".fs"), out.with_suffix(".raw")
    size = _tree_bytes(ROOT) * 13 // 10 + 256 * MIB
    _run("mkfs.ext4", "-q", "-F", "-d", str(ROOT), str(fs), f"{size // MIB}M")
    at = _gpt(raw, size + 4 * MIB, "linux")
    _run("dd", f"if={fs}", f"of={raw}", "bs=1M", f"seek={at // MIB}", "conv=notrunc,sparse", "status=none")
    _run("qemu-img", "convert", "-O", "qcow2", str(raw), str(out))
    fs.unlink()
    raw.unlink()
    return None


def qcow2_lvm_xfs(out: Path) -> str | None:
    """GPT -> LVM physical volume -> logical volume `root` -> xfs, converted to qcow2."""
    if why := _missing("sfdisk", "losetup", "pvcreate", "vgcreate", "lvcreate", "lvs", "mkfs.xfs", "mount",
                       "qemu-img"):
        return why
    raw, fs = out.with_suffix(".raw"), out.with_suffix(".xfs")
    size = _tree_bytes(ROOT) * 14 // 10 + 512 * MIB
    at = _gpt(raw, size + 64 * MIB, "lvm")
    vg = f"mcbench{os.getpid()}"
    env = {**os.environ, "LVM_SUPPRESS_FD_WARNINGS": "1"}
    lvm_off = ["--config", "backup { backup = 0 archive = 0 }"]
    loop = _run("losetup", "-f", "--show", "-o", str(at), str(raw)).stdout.strip()
    try:
        _run("pvcreate", "-q", "-y", *lvm_off, loop, env=env)
        _run("vgcreate", "-q", *lvm_off, vg, loop, env=env)
        _run("lvcreate", "--driverloaded", "n", "-q", "-an", "-Zn", "-y", *lvm_off, "-n", "root", "-l", "100%FREE",
             vg, env=env)
        line = _run("lvs", "--noheadings", "--units", "b", "-o", "seg_pe_ranges,vg_extent_size", f"{vg}/root",
                    env=env).stdout.split()
        first_pe = int(line[0].rsplit(":", 1)[1].split("-")[0])
        extent = int(line[1].rstrip("B"))
        pe_start = int(_run("pvs", "--noheadings", "--units", "b", "-o", "pe_start", loop, env=env).stdout.strip()
                       .rstrip("B"))
        lv_size = int(_run("lvs", "--noheadings", "--units", "b", "-o", "lv_size", f"{vg}/root", env=env).stdout
                      .strip().rstrip("B"))
    finally:
        subprocess.run(["vgchange", "-q", "-an", vg], capture_output=True, env=env)
        subprocess.run(["losetup", "-d", loop], capture_output=True)
    with open(fs, "wb") as f:
        f.truncate(lv_size)
    _run("mkfs.xfs", "-q", "-f", str(fs))
    mnt = Path(tempfile.mkdtemp(prefix="mc-xfs-"))
    done = subprocess.run(["mount", "-o", "loop", str(fs), str(mnt)], capture_output=True, text=True)
    if done.returncode:
        mnt.rmdir()
        return f"cannot loop-mount xfs here ({done.stderr.strip()[:120]})"
    try:
        _run("cp", "-a", f"{ROOT}/.", str(mnt))
    finally:
        subprocess.run(["umount", str(mnt)], check=True)
        mnt.rmdir()
    seek = at + pe_start + first_pe * extent
    _run("dd", f"if={fs}", f"of={raw}", "bs=1M", f"seek={seek}", "oflag=seek_bytes", "conv=notrunc,sparse",
         "status=none")
    _run("qemu-img", "convert", "-O", "qcow2", str(raw), str(out))
    fs.unlink()
    raw.unlink()
    return None


def raw_btrfs(out: Path) -> str | None:
    if why := _missing("mkfs.btrfs"):
        return why
    with open(out, "wb") as f:
        f.truncate(_tree_bytes(ROOT) * 15 // 10 + 512 * MIB)
    _run("mkfs.btrfs", "-q", "--rootdir", str(ROOT), str(out))
    return None


def _layer_tar(paths: list[str], dest: Path) -> str:
    """A layer tar of these paths of the root, in a shuffled (but fixed) order as some builders write them;
    returns its digest (the diff_id)."""
    order = sorted(paths)
    random.Random(7).shuffle(order)
    with tarfile.open(dest, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in order:
            tar.add(ROOT / rel, arcname=rel, recursive=False)
    return "sha256:" + _sha256(dest)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while piece := f.read(MIB):
            h.update(piece)
    return h.hexdigest()


def _compressed(tar: Path, codec: str, blobs: Path) -> dict[str, object]:
    """The tar compressed a piece at a time into the layout's blobs; its descriptor."""
    part = blobs / "partial"
    with open(tar, "rb") as src, open(part, "wb") as dst:
        if codec == "gzip":
            with gzip.GzipFile(fileobj=dst, mode="wb", compresslevel=6, mtime=0) as z:
                shutil.copyfileobj(src, z, MIB)
        else:
            compressor = _zstd().ZstdCompressor(level=3)
            while piece := src.read(MIB):
                dst.write(compressor.compress(piece))
            dst.write(compressor.flush())
    digest = _sha256(part)
    part.rename(blobs / digest)
    return {"mediaType": f"application/vnd.oci.image.layer.v1.tar+{codec}", "digest": f"sha256:{digest}",
            "size": (blobs / digest).stat().st_size}


def _zstd() -> object:
    if sys.version_info >= (3, 14):
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]
    else:
        from backports import zstd  # type: ignore[import-not-found,unused-ignore]
    return zstd


def _groups() -> dict[str, list[str]]:
    """The root's paths as three layers: the OS (everything but /opt and /home), then /opt, then /home."""
    groups: dict[str, list[str]] = {"os": [], "opt": [], "home": []}
    for dirpath, dirs, files in os.walk(ROOT):
        dirs.sort()
        for name in sorted(dirs + files):
            rel = os.path.relpath(os.path.join(dirpath, name), ROOT)
            top = rel.split("/")[0]
            groups[top if top in ("opt", "home") else "os"].append(rel)
    return groups


def oci(out: Path, codec: str) -> str | None:
    """An OCI layout of the three layers, compressed with `codec`."""
    if codec == "zstd":
        try:
            _zstd()
        except ImportError:
            return "backports.zstd not installed (the images extra)"
    groups = _groups()
    blobs = out / "blobs" / "sha256"
    blobs.mkdir(parents=True)

    def put(data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        (blobs / digest).write_bytes(data)
        return f"sha256:{digest}"

    layers, diff_ids = [], []
    for name in ("os", "opt", "home"):
        tar = out / f"{name}.tar"
        diff_ids.append(_layer_tar(groups[name], tar))
        layers.append(_compressed(tar, codec, blobs))
        tar.unlink()
    config = json.dumps({"architecture": "amd64", "os": "linux", "config": {"Env": ["PATH=/usr/bin:/bin"]},
                         "rootfs": {"type": "layers", "diff_ids": diff_ids}}).encode()
    manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                           "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": put(config),
                                      "size": len(config)}, "layers": layers}).encode()
    index = {"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                                                "digest": put(manifest), "size": len(manifest),
                                                "platform": {"os": "linux", "architecture": "amd64"}}]}
    (out / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (out / "index.json").write_text(json.dumps(index))
    return None


def docker_save(out: Path) -> str | None:
    """A `docker save` archive as docker wrote it before OCI layouts: one `<diff id>/layer.tar` per layer (plain,
    each in a shuffled order), the config (`<digest>.json`, its diff_ids the layers'), `manifest.json` last."""
    groups = _groups()
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".docker-save-") as tmp:
        layers = []
        for name in ("os", "opt", "home"):
            tar = Path(tmp) / f"{name}.tar"
            layers.append((_layer_tar(groups[name], tar).split(":")[1], tar))
        config = json.dumps({"architecture": "amd64", "os": "linux", "config": {"Env": ["PATH=/usr/bin:/bin"]},
                             "rootfs": {"type": "layers", "diff_ids": [f"sha256:{h}" for h, _ in layers]}}).encode()
        config_name = f"{hashlib.sha256(config).hexdigest()}.json"
        manifest = json.dumps([{"Config": config_name, "RepoTags": ["bench/debian-agent:1"],
                                "Layers": [f"{h}/layer.tar" for h, _ in layers]}]).encode()
        part = Path(tmp) / "archive.tar"
        with tarfile.open(part, "w") as archive:
            for digest, tar in layers:
                archive.add(tar, arcname=f"{digest}/layer.tar")
            for name, data in ((config_name, config), ("manifest.json", manifest)):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        part.rename(out)
    return None


def converted(out: Path, fmt: str) -> str | None:
    """The qcow2 (ext4) image's disk in another format, converted by qemu-img."""
    source = IMAGES / "ext4.qcow2"
    if why := _missing("qemu-img"):
        return why
    if not (IMAGES / f"ext4.qcow2.v{VERSION}").exists():
        return "the qcow2 (ext4) image it is converted from was not built"
    options = ["-o", "subformat=monolithicSparse"] if fmt == "vmdk" else []
    _run("qemu-img", "convert", "-O", fmt, *options, str(source), str(out))
    return None


KINDS = {
    "qcow2 (ext4)": ("ext4.qcow2", qcow2_ext4),
    "vmdk (ext4)": ("ext4.vmdk", lambda p: converted(p, "vmdk")),
    "vhdx (ext4)": ("ext4.vhdx", lambda p: converted(p, "vhdx")),
    "raw (ext4)": ("ext4.raw", lambda p: converted(p, "raw")),
    "qcow2 (LVM + xfs)": ("lvm-xfs.qcow2", qcow2_lvm_xfs),
    "btrfs": ("root.btrfs", raw_btrfs),
    "OCI, gzip, unsorted": ("oci-gzip", lambda p: oci(p, "gzip")),
    "OCI, zstd, unsorted": ("oci-zstd", lambda p: oci(p, "zstd")),
    "docker save, unsorted": ("docker-save.tar", docker_save),
}


def build() -> dict[str, Path | str]:
    """Each kind's image, built once (a stamp per image); or why it cannot be."""
    IMAGES.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path | str] = {}
    for label, (name, make) in KINDS.items():
        path, stamp = IMAGES / name, IMAGES / f"{name}.v{VERSION}"
        if not stamp.exists():
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
            print(f"images: building {label} ...", flush=True)
            try:
                why = make(path)
            except (subprocess.CalledProcessError, OSError) as exc:
                why = f"build failed: {getattr(exc, 'stderr', '') or exc}".strip()[:200]
            if why:
                out[label] = why
                continue
            stamp.write_text("ok\n")
        out[label] = path
    return out


def _answer(doc: dict[str, object]) -> object:
    """What must equal the directory's: all but target, stats and each location's layer."""
    def strip(x: object) -> object:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "layer"}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return strip({k: v for k, v in doc.items() if k not in ("target", "stats")})


def scan(target: Path, out: Path) -> Run:
    cmd = [sys.executable, "-m", "scanner", "scan", str(target), "-f", "json", "-o", "-", "-q", "--jobs", str(JOBS)]
    return timed(cmd, out)


def _pairs(image: Path, out: Path) -> tuple[float, Run, Run, str]:
    """The directory, then the image, PAIRS times: the median pair's ratio of wall time, its two runs, the spread.
    The image's report is left in `out`."""
    pairs = []
    for _ in range(PAIRS):
        base = scan(ROOT, out)
        run = scan(image, out)
        pairs.append((run.seconds / base.seconds, base, run))
    ordered = sorted(pairs, key=lambda p: p[0])
    _, base, run = ordered[(len(ordered) - 1) // 2]
    ratio = statistics.median(p[0] for p in pairs)  # of an even number, the mean of the middle two
    spread = f" (pairs {ordered[0][0]:.2f}-{ordered[-1][0]:.2f}x)" if PAIRS > 1 else ""
    return ratio, base, run, spread


def main() -> None:
    try:
        import dissect.target  # noqa: F401
    except ImportError:
        print("images: skipped (the images extra is not installed)")
        return
    if not ROOT.is_dir():
        print(f"images: skipped (no {ROOT.relative_to(REPO)}: build it with make eval EVAL_ARGS='--only debian-agent')")
        return
    images = build()
    with tempfile.TemporaryDirectory(prefix="modelcensus-bench-images-") as tmp:
        out = Path(tmp) / "out.json"
        scan(ROOT, out)
        directory = json.loads(out.read_text())
        files, answer = directory["stats"]["files_seen"], _answer(directory)
        print(f"images: {ROOT.relative_to(REPO)} ({files} files) as a directory and as images, --jobs {JOBS}, "
              f"{PAIRS} pair(s) each (the directory scanned right before the image)")
        for label, image in images.items():
            if ONLY and not any(word in label.lower() for word in ONLY):
                continue
            if isinstance(image, str):
                print(f"  {label:22} skipped: {image}")
                continue
            ratio, base, run, spread = _pairs(image, out)
            same = "the same inventory" if _answer(json.loads(out.read_text())) == answer else "a DIFFERENT inventory"
            ok = "ok" if ratio <= 2 and run.pss <= 300 * MIB else "OVER"
            print(f"  {label:22} {run.seconds:6.1f} s  {run.cpu:6.1f} CPU-s  {run.pss >> 20:4d} MiB PSS | directory "
                  f"{base.seconds:5.1f} s  {base.cpu:5.1f} CPU-s  {base.pss >> 20:4d} MiB | {ratio:.2f}x its time"
                  f"{spread}, {run.cpu / base.cpu:.2f}x its CPU, {same}  [{ok}: goal <= 2x, <= 300 MiB] "
                  f"[load {os.getloadavg()[0]:.1f}]", flush=True)
    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) / 2:
        print(f"note: load average {load:.1f}; other processes are skewing the wall times")


if __name__ == "__main__":
    main()
