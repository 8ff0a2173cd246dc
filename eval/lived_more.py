"""OpenHands, mini-swe-agent, Aider and LiteLLM-proxy records, repeated from real ones with fresh ids.

- OpenHands (shared/samples/sessions-more/openhands/basic.json: events with `tool_call_metadata.model_response`,
  the LiteLLM ModelResponse the agent got): saved trajectories (`save_trajectory_path`), and the file store
  `~/.openhands/sessions/<32 hex>/events/<n>.json` with `metadata.json` beside (its `llm_model` is the label).
  Here the agent talks to the LiteLLM proxy of /etc/litellm (Bedrock Converse: `tooluse_` tool ids, LiteLLM's
  `chatcmpl-<uuid4>` response ids).
- mini-swe-agent (…/mini-swe-agent-openrouter/django__django-16255.traj.json: OpenRouter `gen-` ids, provider
  `Google`, visible `reasoning` text).
- Aider (shared/samples/aider/aider.chat.history.head.md: the banner names the main and weak models).
- LiteLLM proxy spend logs exported as JSONL under /var/log/litellm (LiteLLM_SpendLogs columns; `response` the
  provider's answer as LiteLLM returns it).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import lived_text as words
from lived_base import Ctx, Jsonl, Spec, iso, shown, truth


def _openhands_events(ctx: Ctx, spec: Spec, sample: list[dict[str, Any]], when: float, budget: int,
                      ) -> list[dict[str, Any]]:
    """User message, then (action, observation) pairs whose model_response is the sample's with fresh ids."""
    ids, rng = ctx.ids, ctx.rng
    events = [dict(sample[0], id=0, timestamp=iso(when).rstrip("Z"))]
    size, n = 0, 1
    while size < budget:
        when += rng.uniform(3, 25)
        text, source = ctx.fill.tool_output(spec.user, 2_000, 50_000)
        call = ids.bedrock_tooluse() if spec.route == "bedrock" else ids.anthropic_tool()
        action = copy.deepcopy(sample[1])
        meta = action["tool_call_metadata"]
        meta["tool_call_id"] = call
        resp = meta["model_response"]
        resp.update(id=f"chatcmpl-{ids.uuid4()}", created=int(when), model=spec.model)
        msg = resp["choices"][0]["message"]
        msg["content"] = words.answer(rng, 1)
        args = {"command": "view", "path": source if source.startswith("/") else "/workspace/prices.json"}
        msg["tool_calls"] = [{"index": 1, "function": {"arguments": json.dumps(args), "name": "str_replace_editor"},
                              "id": call, "type": "function"}]
        meta["function_name"] = "str_replace_editor"
        action.update(id=n, timestamp=iso(when).rstrip("Z"), action="read", args=args, message="")
        observation = {"id": n + 1, "timestamp": iso(when + 0.2).rstrip("Z"), "source": "agent", "message": text,
                       "cause": n, "observation": "read", "tool_call_metadata": meta,
                       "content": text, "extras": {"path": args["path"]}}
        events += [action, observation]
        size += 2 * len(text) + 3000
        n += 2
    return events


def openhands(ctx: Ctx, spec: Spec, sample: list[dict[str, Any]]) -> list[dict[str, Any]]:
    user = spec.user
    sid = ctx.ids.uuid4_hex()
    events = _openhands_events(ctx, spec, sample, spec.start, spec.size)
    served = [("anthropic", spec.route)]
    if spec.extra.get("file_store"):
        folder = ctx.root / f"home/{user}/.openhands/sessions/{sid}"
        (folder / "events").mkdir(parents=True, exist_ok=True)
        paths = []
        for e in events:
            p = folder / "events" / f"{e['id']}.json"
            p.write_text(json.dumps(e))
            paths.append(shown(ctx.root, p))
        label = spec.extra["label"]
        meta = {"conversation_id": sid, "selected_repository": None, "user_id": user, "title": "Audit model usage",
                "last_updated_at": iso(spec.start + 600), "created_at": iso(spec.start), "llm_model": label,
                "accumulated_cost": 0.41, "prompt_tokens": 182113, "completion_tokens": 2312}
        (folder / "metadata.json").write_text(json.dumps(meta, indent=2))
        row = truth(paths[0], "openhands", user, served, [label, spec.model], "absent", [spec.model], sid,
                    note="label (metadata.json llm_model) disagrees with what served the records")
        row["paths"] = paths
        row["label_mismatch"] = True
        row["metadata"] = [shown(ctx.root, folder / "metadata.json")]
        return [row]
    path = ctx.root / f"home/{user}/work/agent/trajectories/{sid}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(events, indent=2))
    return [truth(shown(ctx.root, path), "openhands", user, served, [spec.model], "absent", [spec.model])]


def mini_swe(ctx: Ctx, spec: Spec, sample: dict[str, Any]) -> list[dict[str, Any]]:
    ids, rng, user = ctx.ids, ctx.rng, spec.user
    traj = copy.deepcopy(sample)
    instance = f"{traj['instance_id']}-{ids.hex(6)}"  # drawn first: the path never depends on the fill
    assistant = next(m for m in traj["messages"] if m["role"] == "assistant")
    messages = traj["messages"][:2]
    when, size = spec.start, 0
    while size < spec.size:
        when += rng.uniform(3, 30)
        a = copy.deepcopy(assistant)
        resp = a["extra"]["response"]
        resp.update(id=ids.openrouter_gen(when), created=int(when), model=spec.model)
        text, _ = ctx.fill.tool_output(user, 2_000, 50_000)
        messages += [a, {"role": "user", "content": f"<returncode>0</returncode>\n<output>\n{text}\n</output>"}]
        size += len(text) + 6000
    traj["messages"] = messages
    traj["instance_id"] = instance
    path = ctx.root / f"home/{user}/work/swebench_runs/trajs/{instance}/{instance}.traj.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(traj, indent=2))
    return [truth(shown(ctx.root, path), "mini-swe-agent", user, [("google", "openrouter")], [spec.model],
                  "visible", [spec.model])]


def aider(ctx: Ctx, spec: Spec, head: str) -> list[dict[str, Any]]:
    """`.aider.chat.history.md`: the real chat's banner with this user's models, chat after chat."""
    rng, user = ctx.rng, spec.user
    weak = spec.extra["weak"]
    banner = head.replace("gemini/gemini-2.5-pro-exp-03-25", spec.model).replace("openai/qwen3:4b", weak)
    banner = "\n".join(line for line in banner.splitlines() if "does not support" not in line
                       and "--no-check-model" not in line)
    first_line, rest = banner.lstrip("\n").split("\n", 1)
    chunks: list[str] = []
    when, size = spec.start, 0
    while size < spec.size:
        stamp = iso(when, ms=False).replace("T", " ").rstrip("Z")
        text, source = ctx.fill.tool_output(user, 2_000, 40_000)
        chunk = (f"\n# aider chat started at {stamp}\n{rest.split('#### ')[0]}#### /add {source}\n\n"
                 f"> Added {source} to the chat\n\n#### {words.prompt(rng)}\n\n{words.answer(rng)}\n\n"
                 f"{source}\n```\n{text}\n```\n")
        chunks.append(chunk)
        size += len(chunk)
        when += rng.uniform(3600, 86400)
    assert first_line.startswith("# aider chat started")
    path = ctx.root / f"home/{user}/work/{spec.extra.get('repo', 'site')}/.aider.chat.history.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(chunks))
    vendor = spec.extra["vendor"]
    return [truth(shown(ctx.root, path), "aider", user, [(vendor, spec.route)], [spec.model, weak], "absent",
                  [spec.model, weak])]


BEDROCK_BASE = "https://bedrock-runtime.us-east-1.amazonaws.com/model/{model}/converse"


def litellm_logs(ctx: Ctx, day: float, size: int, routes: list[tuple[str, str, str]], name: str,
                 ) -> list[dict[str, Any]]:
    """One day of the proxy's spend logs: (model_group, model, vendor) per request, answered over Bedrock."""
    ids, rng = ctx.ids, ctx.rng
    path = ctx.root / f"var/log/litellm/{name}"
    out = Jsonl(path)
    when = day
    served: set[tuple[str, str]] = set()
    models: set[str] = set()
    while out.size < size:
        when += rng.uniform(5, 300)
        group, model, vendor = rng.choice(routes)
        text, _ = ctx.fill.tool_output("dave", 1_000, 30_000)
        call = ids.bedrock_tooluse()
        response = {"id": f"chatcmpl-{ids.uuid4()}", "created": int(when), "model": model, "object": "chat.completion",
                    "system_fingerprint": None, "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
                        "content": words.answer(rng, 1), "role": "assistant", "tool_calls": [
                            {"index": 0, "function": {"arguments": "{\"command\": \"ls\"}", "name": "execute_bash"},
                             "id": call, "type": "function"}]}}],
                    "usage": {"completion_tokens": rng.randint(20, 900), "prompt_tokens": rng.randint(900, 90000)}}
        out.write({"request_id": response["id"], "call_type": "acompletion", "api_key": ids.hex(64),
                   "spend": round(rng.random() / 10, 6), "total_tokens": rng.randint(900, 90000),
                   "startTime": iso(when), "endTime": iso(when + rng.uniform(1, 20)), "model": model,
                   "model_group": group, "model_id": ids.hex(64), "custom_llm_provider": "bedrock",
                   "api_base": BEDROCK_BASE.format(model=model), "user": "openhands",
                   "session_id": ids.uuid4(), "status": "success",
                   "messages": json.dumps([{"role": "user", "content": words.prompt(rng)},
                                           {"role": "tool", "tool_call_id": call, "content": text}]),
                   "response": json.dumps(response)})
        served.add((vendor, "bedrock"))
        models.add(model)
    out.close()
    row = truth(shown(ctx.root, path), "litellm-proxy", "root", sorted(served), sorted(models), "absent",
                sorted(models), note="many requests (sessions) per file; vendors are their union")
    row["model_vendor"] = {m: v for _, m, v in routes if m in models}
    return [row]
