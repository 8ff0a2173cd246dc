"""Tool output of lived-in sessions: real files, quoted as agents quote them.

What an agent reads fills most of a lived-in session: source files, price lists, docs, `grep` output. The
parts here are real files: litellm's model price list (thousands of model ids of every vendor), the Python
sources of the openai, anthropic and google-genai SDKs (their model-id literals), and the host's
`/usr/share/doc` text. Each tool output quotes one of them the way a tool prints it (numbered lines, a JSON
excerpt, `rg -n` matches), so a model id inside it is a mention, never a served-by fact.
"""

from __future__ import annotations

import copy
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

# Where each part is seen from inside the tree (as the agent's tool printed its path).
SITE_SHOWN = "/home/{user}/work/app/.venv/lib/python3.11/site-packages"
PRICE_LIST = "litellm/model_prices_and_context_window_backup.json"
SDK_DIRS = ("openai", "anthropic", "google/genai", "litellm/llms")
MODEL_KEY = re.compile(r'^\s*"([^"]+)": \{\s*$')


@dataclass(frozen=True)
class Part:
    shown: str  # the path as the agent's tool printed it, with {user}
    text: str


class Filler:
    """Deterministic tool output from the real parts (one seeded generator per corpus)."""

    def __init__(self, site: Path, docs: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        self.price_text = (site / PRICE_LIST).read_text(encoding="utf-8")
        self.price_lines = self.price_text.splitlines()
        self.price_keys = [i for i, line in enumerate(self.price_lines) if MODEL_KEY.match(line)]
        self.sources = self._load(site, docs)

    @staticmethod
    def _load(site: Path, docs: Path) -> list[Part]:
        parts: list[Part] = []
        for d in SDK_DIRS:
            for path in sorted((site / d).rglob("*.py")):
                text = path.read_text(encoding="utf-8", errors="replace")
                if 400 < len(text) < 400_000:
                    parts.append(Part(f"{SITE_SHOWN}/{path.relative_to(site)}", text))
        for path in sorted(docs.rglob("*")):
            if path.is_file() and not path.is_symlink() and path.suffix not in (".gz", ".xz", ".bz2") \
                    and 400 < path.stat().st_size < 300_000:
                try:
                    text = path.read_text(encoding="utf-8")
                except (UnicodeDecodeError, OSError):
                    continue
                parts.append(Part(f"/usr/share/doc/{path.relative_to(docs)}", text))
        return parts

    def reseeded(self, seed: int | str) -> Filler:
        """The same parts with a generator of its own: one session's draws never move another's."""
        other = copy.copy(self)
        other.rng = random.Random(seed)
        return other

    def size(self, lo: int, hi: int) -> int:
        return max(lo, min(hi, int(self.rng.lognormvariate(0, 0.9) * lo * 3)))

    # ---- the shapes a tool prints
    def numbered(self, user: str, budget: int) -> tuple[str, str]:
        """A file read as Claude Code's Read tool returns it (`     1→line`); the path read."""
        part = self.rng.choice(self.sources)
        lines = part.text.splitlines()
        start = self.rng.randrange(0, max(1, len(lines) - 20))
        out: list[str] = []
        used = 0
        for n, line in enumerate(lines[start:], start + 1):
            row = f"{n:>6}\u2192{line}"
            used += len(row) + 1
            if used > budget:
                break
            out.append(row)
        return "\n".join(out), part.shown.format(user=user)

    def plain(self, user: str, budget: int) -> tuple[str, str]:
        """A file printed as `cat`/`sed -n` prints it; the path printed."""
        part = self.rng.choice(self.sources)
        start = self.rng.randrange(0, max(1, len(part.text) - budget))
        start = part.text.rfind("\n", 0, start) + 1
        return part.text[start:start + budget], part.shown.format(user=user)

    def price_excerpt(self, budget: int) -> str:
        """A window of litellm's price list (`sed -n 'A,Bp' model_prices_and_context_window.json`)."""
        first = self.rng.choice(self.price_keys)
        out: list[str] = []
        used = 0
        for line in self.price_lines[first:]:
            used += len(line) + 1
            if used > budget:
                break
            out.append(line)
        return "\n".join(out)

    def grep_models(self, budget: int, pattern: str = "") -> str:
        """`rg -n '"<vendor>…' model_prices_and_context_window.json`: model keys of many vendors, one a line."""
        wanted = re.compile(pattern) if pattern else None
        rows: list[str] = []
        used = 0
        start = self.rng.randrange(0, len(self.price_keys))
        for i in self.price_keys[start:] + self.price_keys[:start]:
            line = self.price_lines[i]
            if wanted is not None and not wanted.search(line):
                continue
            row = f"model_prices_and_context_window.json:{i + 1}:{line}"
            used += len(row) + 1
            if used > budget:
                break
            rows.append(row)
        return "\n".join(rows)

    def many_vendor_listing(self) -> str:
        """The hard case: one output naming ids of OpenAI, Anthropic, Google, Mistral, xAI, DeepSeek and more."""
        pattern = r'"(gpt-5|claude-(opus|sonnet|haiku)-4|gemini-2\.5|gemini-3|mistral-large|grok-4|deepseek-(chat|r))'
        return self.grep_models(60_000, pattern)

    def tool_output(self, user: str, lo: int = 2_000, hi: int = 120_000) -> tuple[str, str]:
        """One tool output of a lived-in session, of a random real kind; the command or path it came from."""
        budget = self.size(lo, hi)
        r = self.rng.random()
        if r < 0.45:
            return self.numbered(user, budget)
        if r < 0.75:
            return self.plain(user, budget)
        if r < 0.9:
            return self.price_excerpt(budget), "sed -n '1,4000p' model_prices_and_context_window.json"
        return self.grep_models(budget), "rg -n '\"' model_prices_and_context_window.json"

    def price_json_slice(self, n: int) -> str:
        """`n` whole records of the price list, as JSON text (a proxy's `/model/info` answer)."""
        data = json.loads(self.price_text)
        keys = sorted(k for k in data if k != "sample_spec")
        start = self.rng.randrange(0, max(1, len(keys) - n))
        return json.dumps({k: data[k] for k in keys[start:start + n]}, indent=1)
