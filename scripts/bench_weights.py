"""`make bench` (weights): one 2 GB GGUF (the real-parts tree's `/srv`) scanned with its SHA-256 on and off, set
against ripgrep and `sha256sum` on the same file: wall and CPU time, and peak memory (PSS) of the scan.

The digest is fed from the windows the scan reads anyway, so the file is read once with memory flat; the ratio
to ripgrep says what the digest costs over the matching that reads it."""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import bench_measure as bm
import bench_tree


def main() -> None:
    tree = bench_tree.BENCH / "weights"
    bench_tree.weights(tree)
    with tempfile.TemporaryDirectory(prefix="modelcensus-bench-") as tmp:
        out = Path(tmp)
        from bench import patterns_file  # scripts/ is this script's directory: the one list of rg patterns

        patterns = patterns_file(out)
        size = (tree / bench_tree.WEIGHTS).stat().st_size
        bm.read_floor([tree / bench_tree.WEIGHTS], 1)
        floor = bm.timed(["sha256sum", str(tree / bench_tree.WEIGHTS)], out / "sha.out")
        print(f"weights ({tree}): one GGUF of {size / 1e9:.2f} GB; sha256sum {floor.seconds:.1f} s [load {bm.load()}]")
        scan = [str(bench_tree.REPO / ".venv/bin/modelcensus"), "scan", str(tree), "-f", "json", "-q", "-o",
                str(out / "inv.json"), "--jobs", "1"]
        expected = (out / "sha.out").read_text().split()[0]
        rg = [shutil.which("rg") or "rg", "-a", "--no-unicode", "-j", "1", "-c", "-f", str(patterns), str(tree)]
        for label, cmd in (("digest on", scan), ("--no-hash-weights", [*scan, "--no-hash-weights"])):
            runs = []
            for _ in range(bm.PAIRS):
                mc, r = bm.timed(cmd, out / "mc.out"), bm.timed(rg, out / "rg.out")
                runs.append((mc, r))
                print(f"    {label}: modelcensus {mc.seconds:6.1f} s, {mc.cpu:6.1f} CPU-s, {mc.pss >> 20} MiB PSS | "
                      f"ripgrep {r.seconds:6.1f} s, {r.cpu:6.1f} CPU-s | {mc.seconds / r.seconds:.2f}x "
                      f"[load {bm.load()}]", flush=True)
            ratio = statistics.median(mc.seconds / r.seconds for mc, r in runs)
            peak = max(mc.pss for mc, _ in runs)
            cpu = statistics.median(mc.cpu / max(r.cpu, 0.05) for mc, r in runs)
            (f,) = [f for e in json.loads((out / "inv.json").read_text())["local_models"] for f in e["files"]]
            same = f["sha256"] == expected
            digest = "no digest" if f["sha256"] is None else "sha256sum's digest" if same else "a WRONG digest"
            print(f"  => {label}: {ratio:.2f}x ripgrep's wall time, {cpu:.2f}x its CPU time, peak {peak >> 20} MiB "
                  f"PSS; the inventory gives {digest}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
