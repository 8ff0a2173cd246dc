"""The agent products of the `agent-zoo` corpus: which package, which release (new and old), how it is installed
and for whom. Every name and version here was checked against its registry (npm view, PyPI JSON) on 2026-12-02.

A product's `id` is the eval's own name for it (the catalog id where catalogs/agents.toml has the product);
`names` are the other names an inventory may fairly give it: its package name, its command, its display name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

USERS = {"alice": 1000, "bob": 1001, "carol": 1002}


@dataclass(frozen=True)
class Product:
    id: str
    ecosystem: str            # npm | pypi | vscode (an editor extension)
    package: str              # npm / PyPI name, or the extension's `publisher.name`
    version: str
    old: str = ""             # the release in agent-zoo-old, when it differs
    layout: str = "npm-system"   # npm-system | npm-user | uv | pipx | vscode | cursor | vscode-server
    user: str = ""            # whose home holds a per-user install
    names: tuple[str, ...] = ()
    binaries: tuple[str, ...] = ()
    display: str = ""
    # for extensions: where the real package.json was read (repository, path, commit)
    source: tuple[str, str, str] | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def release(self, old: bool) -> str:
        return self.old if old and self.old else self.version


def _npm(pid: str, package: str, version: str, *, old: str = "", layout: str = "npm-system", user: str = "",
         binaries: tuple[str, ...] = (), display: str = "") -> Product:
    return Product(pid, "npm", package, version, old, layout, user, (package, *binaries, display), binaries, display)


def _py(pid: str, package: str, version: str, layout: str, user: str, *, old: str = "",
        binaries: tuple[str, ...] = (), display: str = "") -> Product:
    return Product(pid, "pypi", package, version, old, layout, user, (package, *binaries, display), binaries, display)


PRODUCTS: list[Product] = [
    # The eight catalogs/agents.toml knows today (same releases as dev-machine: the npm cache serves them).
    _npm("claude-code", "@anthropic-ai/claude-code", "2.1.332", binaries=("claude",), display="Claude Code"),
    _npm("codex", "@openai/codex", "0.171.0", binaries=("codex",), display="Codex CLI"),
    _npm("gemini-cli", "@google/gemini-cli", "0.61.0", binaries=("gemini",), display="Gemini CLI"),
    _npm("copilot-cli", "@github/copilot", "1.0.102", binaries=("copilot",), display="GitHub Copilot CLI"),
    _npm("opencode", "opencode-ai", "1.18.33", binaries=("opencode",), display="opencode"),
    _npm("qwen-code", "@qwen-code/qwen-code", "0.24.4", binaries=("qwen",), display="Qwen Code"),
    _npm("pi", "@mariozechner/pi-coding-agent", "0.73.1", binaries=("pi",), display="pi"),
    _py("aider", "aider-chat", "0.86.2", "uv", "carol", binaries=("aider",), display="Aider"),
    # npm products the catalog does not know, system-wide (`sudo npm i -g`)
    _npm("cline", "cline", "3.0.65", old="3.0.57", binaries=("cline",), display="Cline"),
    _npm("continue-cli", "@continuedev/cli", "1.5.47", old="1.5.45", binaries=("cn",), display="Continue CLI"),
    _npm("kilo-code-cli", "@kilocode/cli", "7.7.7", old="7.7.2", binaries=("kilo", "kilocode"),
         display="Kilo Code CLI"),
    _npm("auggie", "@augmentcode/auggie", "0.36.0", binaries=("auggie",), display="Augment Auggie"),
    _npm("amp", "@ampcode/cli", "0.0.1790712063-gb89205", binaries=("amp",), display="Amp"),
    # ... and per user, under an npm prefix in the home (`npm config set prefix ~/.npm-global`)
    _npm("grok-cli", "@vibe-kit/grok-cli", "0.0.34", layout="npm-user", user="alice", binaries=("grok",),
         display="Grok CLI"),
    _npm("crush", "@charmland/crush", "0.96.1", layout="npm-user", user="alice", binaries=("crush",),
         display="Crush"),
    _npm("droid", "droid", "0.215.0", layout="npm-user", user="alice", binaries=("droid",),
         display="Factory Droid"),
    _npm("letta-code", "@letta-ai/letta-code", "0.25.9", layout="npm-user", user="alice", binaries=("letta",),
         display="Letta Code"),
    _npm("qoder-cli", "@qoder-ai/qodercli", "1.1.52", layout="npm-user", user="bob", binaries=("qodercli", "qoder"),
         display="Qoder CLI"),
    _npm("jules", "@google/jules", "0.1.42", layout="npm-user", user="bob", binaries=("jules",), display="Jules"),
    # Python agents as `uv tool install` (carol) and `pipx install` (bob) make them
    _py("kimi-cli", "kimi-cli", "1.52.0", "uv", "carol", binaries=("kimi",), display="Kimi CLI"),
    _py("mistral-vibe", "mistral-vibe", "3.0.2", "uv", "carol", binaries=("vibe",), display="Mistral Vibe"),
    _py("llm", "llm", "0.36", "uv", "carol", old="0.33", binaries=("llm",), display="LLM"),
    _py("mini-swe-agent", "mini-swe-agent", "2.4.6", "uv", "carol", binaries=("mini",), display="mini-swe-agent"),
    _py("gptme", "gptme", "0.35.1", "pipx", "bob", binaries=("gptme",), display="gptme"),
    _py("open-interpreter", "open-interpreter", "0.4.3", "pipx", "bob", binaries=("interpreter",),
        display="Open Interpreter"),
    _py("openhands", "openhands", "1.16.0", "pipx", "bob", binaries=("openhands",), display="OpenHands"),
]

# Editor extensions: `publisher.name` (lower case in the folder, as VS Code writes it), the release, the editor.
EXTENSIONS: list[Product] = [
    Product("cline-vscode", "vscode", "saoudrizwan.claude-dev", "", layout="vscode", user="alice",
            names=("saoudrizwan.claude-dev", "claude-dev", "Cline"), display="Cline"),
    Product("roo-code", "vscode", "RooVeterinaryInc.roo-cline", "", layout="vscode-server", user="carol",
            names=("RooVeterinaryInc.roo-cline", "rooveterinaryinc.roo-cline", "roo-cline", "Roo Code"),
            display="Roo Code"),
    Product("copilot-chat", "vscode", "GitHub.copilot-chat", "", layout="vscode", user="alice",
            names=("GitHub.copilot-chat", "github.copilot-chat", "copilot-chat", "GitHub Copilot Chat"),
            display="GitHub Copilot Chat"),
    Product("kilo-code", "vscode", "kilocode.Kilo-Code", "", layout="cursor", user="bob",
            names=("kilocode.Kilo-Code", "kilocode.kilo-code", "kilo-code", "Kilo Code"), display="Kilo Code"),
    Product("continue-vscode", "vscode", "Continue.continue", "", layout="cursor", user="bob",
            names=("Continue.continue", "continue.continue", "continue", "Continue"), display="Continue"),
]
# Gemini Code Assist (Google.geminicodeassist) is closed source: no repository holds its package.json and the
# marketplace is not reachable from the build machine, so it is not in the corpus.

# The editor folder each layout means, per user home.
EDITOR_DIRS = {"vscode": ".vscode/extensions", "cursor": ".cursor/extensions",
               "vscode-server": ".vscode-server/extensions"}
EDITOR_NAMES = {"vscode": "vscode", "cursor": "cursor", "vscode-server": "vscode-server"}

PY_VERSION = "3.12"   # kimi-cli, mistral-vibe and openhands-ai ask for Python >= 3.12
