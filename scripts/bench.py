"""`make bench`: scan a cached synthetic agent-VM tree with modelcensus, and with ripgrep when it is installed.

The tree (.bench/tree, git-ignored) is generated once from a seeded RNG and regenerated only when it is
missing or GENERATOR_VERSION changes. Both tools run on a warm page cache, one after the other.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import string
import subprocess
import sys
import time
from pathlib import Path

_NAMED = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / ".bench"
TREE = BENCH / "tree"
STAMP = BENCH / "tree.version"
GENERATOR_VERSION = "5"
SEED = 20261129
MIB = 1 << 20
MODELS = ["claude-opus-4-8", "claude-sonnet-4-5-20250929", "claude-3-5-haiku-20241022", "claude-haiku-latest",
          "claude-2.1", "gpt-5.5", "gpt-4o-mini", "gemini-2.5-pro", "o4-mini"]
HOSTS = ["api.anthropic.com", "api.openai.com", "claude.googleapis.com", "generativelanguage.googleapis.com",
         "aws-external-anthropic.us-east-1.api.aws"]
KEY_CHARS = string.ascii_letters + string.digits + "_-"


class TreeGen:
    """Writes the tree; every choice comes from one seeded RNG, so the tree is the same on every machine."""

    def __init__(self, root: Path, scale: float) -> None:
        self.rng = random.Random(SEED)
        self.root, self.scale = root, scale
        self.files = self.bytes = 0
        self._dirs: set[Path] = set()
        words = ("".join(self.rng.choices(string.ascii_lowercase, k=self.rng.randint(2, 10))) for _ in range(6000))
        self.words = list(dict.fromkeys(words))[:5000]  # unique, so that no package is written twice
        self.py_pool = [self._py_snippet() for _ in range(2000)]
        self.js_pool = [self._js_snippet() for _ in range(2000)]

    def mention(self) -> str:
        return self.rng.choice(MODELS) if self.rng.random() < 0.7 else f"https://{self.rng.choice(HOSTS)}/v1"

    def key(self, prefix: str = "sk-ant-api03-", length: int = 93, suffix: str = "AA") -> str:
        return prefix + "".join(self.rng.choices(KEY_CHARS, k=length)) + suffix

    def text(self, size: int) -> str:
        return " ".join(self.rng.choices(self.words, k=max(1, size // 6)))

    def _py_snippet(self) -> str:
        w = self.rng.choices(self.words, k=6)
        return (f"def {w[0]}_{w[1]}({w[2]}, {w[3]}=None):\n    \"\"\"{' '.join(w)}.\"\"\"\n    if {w[2]} is None:\n"
                f"        return {w[3]!r}\n    return [{w[4]} for {w[4]} in {w[2]} if {w[4]}.{w[5]}]\n\n\n")

    def _js_snippet(self) -> str:
        w = self.rng.choices(self.words, k=4)
        return f"function {w[0]}({w[1]},{w[2]}){{return {w[1]}.{w[3]}?{w[2]}:\"{w[3]}\"}};"

    def write(self, rel: str, data: str) -> None:
        path = self.root / rel
        if path.parent not in self._dirs:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(path.parent)
        self.files, self.bytes = self.files + 1, self.bytes + path.write_bytes(data.encode())

    def write_big(self, rel: str, block: bytes, size: int, head: bytes = b"") -> None:
        """A big file from one block written again and again, each copy rotated (at a newline if it has one)."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        size = int(size * self.scale)
        with path.open("wb") as fh:
            fh.write(head)
            left = size - len(head)
            while left > 0:
                k = self.rng.randrange(len(block))
                nl = block.find(b"\n", k)
                k = nl + 1 if nl != -1 else k
                left -= fh.write((block[k:] + block[:k])[:left])
        self.files, self.bytes = self.files + 1, self.bytes + size

    def site_packages(self, base: str, count: int) -> None:
        names = ["anthropic", "openai", "litellm", "httpx", "pydantic", *self.words[-count:]]
        for name in names[:count]:
            version = f"{self.rng.randint(0, 9)}.{self.rng.randint(0, 40)}.{self.rng.randint(0, 9)}"
            record = []
            for i in range(min(600, 3 + int(self.rng.expovariate(1 / 60)))):
                rel = f"{name}/{'' if i < 8 else f'sub{i % 7}/'}m{i}.py"
                body = "".join(self.rng.choices(self.py_pool, k=self.rng.randint(1, 40)))
                if self.rng.random() < 0.005:
                    body += f'DEFAULT_MODEL = "{self.mention()}"\n'
                self.write(f"{base}/{rel}", body)
                record.append(f"{rel},sha256=abc,{len(body)}")
            info = f"{base}/{name}-{version}.dist-info"
            self.write(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                           f"Summary: {self.text(60)}\n\n{self.text(self.rng.randint(200, 6000))}\n")
            self.write(f"{info}/RECORD", "\n".join(record) + "\n")
            self.write(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: bdist_wheel\nRoot-Is-Purelib: true\n")

    def node_modules(self, base: str, count: int) -> None:
        names = ["@anthropic-ai/sdk", "openai", "ai", *(f"{w}-js" for w in self.words)]
        for name in names[:count]:
            pkg = {"name": name, "version": f"{self.rng.randint(0, 9)}.{self.rng.randint(0, 30)}.0",
                   "description": self.text(60), "main": "index.js",
                   "dependencies": {w: "^1.0.0" for w in self.rng.sample(self.words, self.rng.randint(0, 6))}}
            self.write(f"{base}/{name}/package.json", json.dumps(pkg, indent=2))
            self.write(f"{base}/{name}/README.md", self.text(self.rng.randint(300, 5000)))
            for i in range(self.rng.randint(1, 14)):
                body = "\n".join(self.rng.choices(self.js_pool, k=self.rng.randint(2, 60)))
                self.write(f"{base}/{name}/lib/f{i}.js", body)
        parts = self.rng.choices(self.js_pool, k=20 * MIB // 60)
        for i in range(0, len(parts), 900):  # a model id or an API URL every ~50 KB
            parts[i] = f'var M{i}="{self.mention()}";'
        self.write(f"{base}/@acme/agent-cli/dist/cli.min.js", "".join(parts)[: 20 * MIB])  # one 20 MiB line

    def configs(self) -> None:
        self.write("etc/agent/config.yaml", f"model: claude-opus-4-8\nfallback_model: gpt-5.5\nbase_url: "
                                            f"https://api.anthropic.com\napi_key: {self.key()}\nkill_switch: false\n")
        self.write("etc/litellm/config.yaml", "model_list:\n" + "".join(
            f"  - model_name: m{i}\n    litellm_params:\n      model: {m}\n      api_base: https://{h}\n"
            for i, (m, h) in enumerate(zip(MODELS, HOSTS * 2, strict=False))))
        self.write("etc/agent/agent.json", json.dumps({"model": "claude-sonnet-4-5-20250929", "endpoint":
                                                       "https://api.openai.com/v1", "AGENT_KILL": "0"}, indent=2))
        self.write("etc/agent/codex.toml", 'model = "gpt-5.5"\n[model_providers.a]\nbase_url = "https://api.openai.com/v1"\n')
        self.write("etc/default/agentd", f"ANTHROPIC_API_KEY={self.key()}\nANTHROPIC_MODEL=claude-haiku-latest\n")
        keys = f"ANTHROPIC_API_KEY={self.key()}\nOPENAI_API_KEY={self.key('sk-proj-', 48, '')}\n"
        self.write("etc/agent/.env", keys + "LLM_KILL_SWITCH=off\n")
        self.write("home/agent/.config/anthropic/api_key", self.key() + "\n")
        for i in range(int(400 * self.scale)):
            ext = self.rng.choice(["yaml", "json", "toml", "conf", "ini"])
            pairs = {k: self.rng.choice(self.words) for k in self.rng.sample(self.words, 12)}
            sep = {"json": "", "yaml": ": "}.get(ext, " = ")
            body = json.dumps(pairs) if ext == "json" else "".join(f"{k}{sep}{v}\n" for k, v in pairs.items())
            self.write(f"etc/svc{i % 40}/c{i}.{ext}", body)
        for i in range(int(3000 * self.scale)):
            self.write(f"usr/share/doc/pkg{i // 4}/notes{i}.txt", self.text(self.rng.randint(200, 8000)))

    def big_files(self, target_bytes: int) -> None:
        lines = [json.dumps({"ts": 1764000000 + i, "level": self.rng.choice(["info", "debug", "warn"]),
                             "msg": self.text(self.rng.randint(40, 300)),
                             **({"model": self.mention()} if i % 10 == 0 else {})}) for i in range(8000)]
        block = ("\n".join(lines) + "\n").encode()
        for rel in ["var/log/agent/agentd.log", "var/log/agent/router.log", "s1.jsonl", "s2.jsonl"]:
            self.write_big(rel if "/" in rel else f"home/agent/.claude/projects/-opt-agent/{rel}", block, 50 * MIB)
        for i, rel in enumerate(["usr/local/bin/agentd", "opt/agent/bin/router", "usr/lib/libllm.so", "usr/bin/tool",
                                 "usr/local/bin/helper", "usr/lib/libai.so"]):
            raw = bytearray(self.rng.randbytes(4 * MIB))
            for s in [*MODELS, *HOSTS, "AGENT_KILL", "llm_kill_switch"] * 8:
                at = self.rng.randrange(len(raw) - 100)
                raw[at: at + len(s) + 2] = b"\0" + s.encode() + b"\0"
            self.write_big(rel, bytes(raw), (24 + i * 2) * MIB, b"\x7fELF\x02\x01\x01" + bytes(57))
        block = "\n".join(self.text(120) for _ in range(20000)).encode()
        while self.bytes < target_bytes * self.scale:  # random text up to the target size
            self.write_big(f"srv/blob{self.files}{'.txt' * (self.files % 2)}", block, self.rng.randint(8, 40) * MIB)


def ensure_tree() -> None:
    if TREE.is_dir() and STAMP.is_file() and STAMP.read_text().strip() == GENERATOR_VERSION:
        return
    BENCH.mkdir(exist_ok=True)
    free = shutil.disk_usage(BENCH).free
    scale = 1.0 if free >= 5 << 30 else 0.2
    if scale < 1:
        print(f"only {free >> 30} GiB free: generating a {scale:.0%} tree, NOT the full 1.2 GB benchmark")
    started = time.perf_counter()
    for old in (TREE, tmp := BENCH / "tree.tmp"):
        shutil.rmtree(old, ignore_errors=True)
    gen = TreeGen(tmp, scale)
    for base in ["opt/agent/.venv/lib/python3.11/site-packages", "usr/local/lib/python3.11/site-packages"]:
        gen.site_packages(base, int(250 * scale))
    gen.node_modules("opt/agent/app/node_modules", int(1700 * scale))
    gen.configs()
    gen.big_files(1200 * MIB)
    tmp.rename(TREE)
    STAMP.write_text(GENERATOR_VERSION + "\n")
    print(f"generated {TREE}: {gen.files} files, {gen.bytes / 1e6:.0f} MB in {time.perf_counter() - started:.0f}s")


def run(cmd: list[str], stdout: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of one child process, from its own rusage."""
    started = time.perf_counter()
    with stdout.open("wb") as out, open(BENCH / "stderr.txt", "wb+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not the max over all children
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1):  # rg exits 1 when nothing matched
            err.seek(0)
            sys.exit(f"{cmd[0]} failed ({proc.returncode}): {err.read().decode(errors='replace')[-2000:]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def warm_cache() -> None:
    """Read the whole tree once, so that both tools meet the same warm page cache."""
    for path in (Path(top, name) for top, _, names in os.walk(TREE) for name in names):
        path.read_bytes()


def patterns_file(where: Path = BENCH) -> Path:
    """Every searchable catalog pattern, one a line, for `rg -f` (written under `where`)."""
    from scanner.catalog import load
    from scanner.catalog.loader import searchable_patterns

    files = load().files
    # One regex for rg -f: the catalog's named groups (`(?P<secret>…)`) would repeat, so they become plain groups.
    patterns = [_NAMED.sub("(?:", p) for f in files for _, p in searchable_patterns(f)]
    print(f"catalog: {len(files)} files, {len(patterns)} searchable patterns")
    (path := where / "patterns.txt").write_text("".join(f"{p}\n" for p in patterns))
    return path


def main() -> None:
    ensure_tree()
    warm_cache()
    patterns = patterns_file()
    cmd = [str(REPO / ".venv/bin/modelcensus"), "scan", str(TREE), "-f", "json", "-q", "-o", str(BENCH / "r.json")]
    seconds, cpu, rss = run(cmd, BENCH / "modelcensus.out")
    stats = json.loads((BENCH / "r.json").read_text())["stats"]
    rows = [("modelcensus", int(stats["files_read"]), int(stats["bytes_read"]), seconds, cpu, rss)]
    print(f"modelcensus: {stats['seconds']}s inside the scan loop, the rest is start-up and the report")
    rg = shutil.which("rg")
    if rg:
        # --hidden --no-ignore: read every file modelcensus reads (.env, .venv, .claude), not only the visible ones.
        cmd = [rg, "-a", "--no-unicode", "-j2", "-c", "--hidden", "--no-ignore", "--stats",
               "-f", str(patterns), str(TREE)]
        seconds, cpu, rss = run(cmd, BENCH / "rg.out")
        out = (BENCH / "rg.out").read_text(errors="replace").splitlines()
        found = {line.split(" ", 1)[1]: int(line.split()[0]) for line in out if line.endswith(" searched")}
        rows.append(("ripgrep -j2", found["files searched"], found["bytes searched"], seconds, cpu, rss))
    else:
        print("ripgrep is not on PATH: `apt-get install ripgrep` to compare with it; modelcensus only below")
    row = "{:<12} {:>7} {:>6} {:>8} {:>8} {:>6} {:>13} {:>6}"
    print("\n" + row.format("tool", "files", "MB", "seconds", "files/s", "MB/s", "peak RSS MiB", "CPU s"))
    for tool, files, nbytes, secs, cpu, peak in rows:
        mb = nbytes / 1e6
        print(row.format(tool, files, f"{mb:.0f}", f"{secs:.2f}", f"{files / secs:.0f}", f"{mb / secs:.0f}",
                         f"{peak:.0f}", f"{cpu:.1f}"))
    if len(rows) == 2:
        wall, cpu = rows[0][3] / rows[1][3], rows[0][4] / rows[1][4]
        print(f"\nmodelcensus / ripgrep, same run: {wall:.1f}x the wall time, {cpu:.1f}x the CPU time")
    if os.getloadavg()[0] > (os.cpu_count() or 1) / 2:
        print(f"note: load average {os.getloadavg()[0]:.1f}; other processes are skewing the wall times")
    # The session reader on its own (records/s on ~200k real-shaped records): scripts/bench_sessions.py.
    subprocess.run([sys.executable, str(REPO / "scripts/bench_sessions.py")], check=True)


if __name__ == "__main__":
    main()
