"""A large agent tree for report tests and the docs screenshot: sample_vm, plus a LiteLLM router with many aliases
over several vendors and routes, months of sessions (sample_vm's own session logs, re-dated and renamed), and an
installed SDK whose price list holds thousands of model ids."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from pathlib import Path

from tests.conftest import SAMPLE_VM, sample_vm_copy, write

_ROUTES = [("azure", "azure/{m}", "gpt-5.5"), ("azure", "azure/{m}", "gpt-5.6-sol"),
           ("bedrock", "bedrock/anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1"),
           ("direct", "anthropic/claude-sonnet-4-6", "claude-sonnet-4-6"),
           ("direct", "openai/gpt-5.5-pro", "gpt-5.5-pro"),
           ("vertex", "vertex_ai/claude-opus-4-1@20250805", "claude-opus-4-1"),
           ("fireworks", "fireworks_ai/accounts/fireworks/models/kimi-k3", "kimi-k3")]
_SESSIONS = SAMPLE_VM / "home/agent/.jarvis/sessions/2026-11-20"


def build(root: Path, aliases: int = 36, days: int = 120, package_ids: int = 1800) -> Path:
    sample_vm_copy(root)
    entries = []
    for i in range(aliases):
        _, model, base = _ROUTES[i % len(_ROUTES)]
        name = f"team{i // len(_ROUTES)}-{base.split('-')[0]}-{i}"
        entries.append(f"  - model_name: {name}\n    litellm_params:\n      model: {model.format(m=name)}\n"
                       f"    model_info:\n      base_model: {base}\n")
    write(root, "/etc/litellm/router.yaml", "model_list:\n" + "".join(entries))
    start = date(2026, 11, 20) - timedelta(days=days)
    logs = sorted(_SESSIONS.iterdir())
    for n in range(0, days, 3):
        day = start + timedelta(days=n)
        for k, log in enumerate(logs):
            sid = f"{log.stem.rsplit('-', 1)[0]}-{n:04d}{k:02d}{'a' * 10}"
            text = log.read_text(encoding="utf-8").replace(log.stem, sid)
            text = re.sub(r"2026-11-20T", f"{day.isoformat()}T", text)
            write(root, f"/home/agent/.jarvis/sessions/{day.isoformat()}/{sid}.jsonl", text)
    for a in range(5, 5 + (package_ids + 1199) // 1200):  # under the matcher's hits-per-pattern cap per file
        ids = {f"gpt-{a}.{b}-preview": {"input_cost_per_token": 1e-6} for b in range(1200)}
        write(root, f"/usr/lib/python3/dist-packages/litellm/prices_{a}.json", json.dumps(ids))
    write(root, "/usr/lib/python3/dist-packages/litellm-1.103.4.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: litellm\nVersion: 1.103.4\n")
    return root
