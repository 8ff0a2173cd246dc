"""Model servers run as containers: Docker Compose services and Kubernetes pod specs, already parsed.

A container runs its image's entrypoint with the arguments given (`command:` in Compose, `args:` in
Kubernetes) unless the file overrides the entrypoint (`entrypoint:`, `command:`). So a service is a server
when its own command line invokes one, or when its image is one whose entrypoint is that server
(`vllm/vllm-openai`, `ghcr.io/huggingface/text-generation-inference`): then its arguments alone are that
server's. What the machine sees of it is kept too: the ports it publishes and the host directories mounted
into it, so `--model-id /data/Qwen3-32B` over a `/srv/models:/data` mount is `/srv/models/Qwen3-32B`.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Sequence
from dataclasses import replace

from scanner.formats.servercmd import CommandGrammar, ServedModel, find_server, parse_args

MAX_SERVICES = 1000


def served_by_compose(doc: object, grammars: Sequence[CommandGrammar]) -> list[ServedModel]:
    """The model servers among a Compose file's services (`doc` as YAML loaded it)."""
    services = doc.get("services") if isinstance(doc, dict) else None
    if not isinstance(services, dict):
        return []
    out = []
    for name, svc in list(services.items())[:MAX_SERVICES]:
        if not isinstance(svc, dict):
            continue
        env = _env(svc.get("environment"))
        served = _serve(str(svc.get("image") or ""), _words(svc.get("entrypoint")), _words(svc.get("command")), env,
                        grammars)  # fmt: skip
        if served is not None:
            mounts = [m for v in _list(svc.get("volumes")) if (m := _compose_mount(v)) is not None]
            published = tuple(p for raw in _list(svc.get("ports")) if (p := _published(raw, served.port)) is not None)
            out.append(_placed(served, str(name)[:200], mounts, published))
    return out


def served_by_pod(doc: object, grammars: Sequence[CommandGrammar]) -> list[ServedModel]:
    """The model servers among the containers of a Kubernetes workload or pod (`doc` as YAML loaded it)."""
    spec = _pod_spec(doc)
    if spec is None:
        return []
    host_paths = {
        v["name"]: v["hostPath"]["path"]
        for v in _list(spec.get("volumes"))
        if isinstance(v, dict) and isinstance(v.get("hostPath"), dict) and isinstance(v["hostPath"].get("path"), str)
    }
    out = []
    for c in _list(spec.get("containers"))[:MAX_SERVICES]:
        if not isinstance(c, dict):
            continue
        env = {e["name"]: str(e["value"]) for e in _list(c.get("env"))
               if isinstance(e, dict) and isinstance(e.get("name"), str) and "value" in e}  # fmt: skip
        served = _serve(str(c.get("image") or ""), _words(c.get("command")), _words(c.get("args")), env, grammars)
        if served is None:
            continue
        mounts = [(host_paths[m["name"]], m["mountPath"]) for m in _list(c.get("volumeMounts"))
                  if isinstance(m, dict) and m.get("name") in host_paths and isinstance(m.get("mountPath"), str)]
        published = tuple((None, p["hostPort"]) for p in _list(c.get("ports"))
                          if isinstance(p, dict) and isinstance(p.get("hostPort"), int))  # fmt: skip
        out.append(_placed(served, str(c.get("name") or "")[:200] or None, mounts, published))
    return out


def _serve(image: str, entry: list[str], command: list[str], env: dict[str, str],
           grammars: Sequence[CommandGrammar]) -> ServedModel | None:  # fmt: skip
    found = find_server(entry + command, grammars)
    if found is not None:
        return parse_args(found[0], found[1], env)
    if entry:  # the image's entrypoint was replaced by something that is not a catalogued server
        return None
    for grammar in grammars:
        if grammar.runs_image(image):
            return parse_args(grammar, command, {**dict(grammar.image_env), **env})
    return None


def _placed(served: ServedModel, source: str | None, mounts: list[tuple[str, str]],
            published: tuple[tuple[str | None, int], ...]) -> ServedModel:  # fmt: skip
    return replace(served, source=source, published=published, model_on_host=_on_host(served.model, mounts))


def _on_host(path: str | None, mounts: list[tuple[str, str]]) -> str | None:
    """A container path as the machine sees it, through the longest bind mount that holds it."""
    if not path or not path.startswith("/"):
        return None
    best = None
    for host, inside in mounts:
        inside = inside.rstrip("/") or "/"
        holds = path == inside or path.startswith(inside.rstrip("/") + "/")
        if holds and (best is None or len(inside) > len(best[1])):
            best = (host, inside)
    if best is None or not best[0].startswith("/"):
        return None
    rest = path[len(best[1]) :].lstrip("/")
    return posixpath.normpath(posixpath.join(best[0], rest)) if rest else best[0]


def _compose_mount(raw: object) -> tuple[str, str] | None:
    if isinstance(raw, dict) and isinstance(raw.get("source"), str) and isinstance(raw.get("target"), str):
        return raw["source"], raw["target"]
    if isinstance(raw, str) and raw.count(":") >= 1:
        parts = raw.split(":")
        return parts[0], parts[1]
    return None


def _published(raw: object, port: int | None) -> tuple[str | None, int] | None:
    """The machine's (address, port) for the server's container port in one `ports:` entry."""
    if isinstance(raw, dict):
        target, host_port, ip = raw.get("target"), raw.get("published"), raw.get("host_ip")
        ok = str(target) == str(port) and str(host_port or "").isdigit()
        return (ip if isinstance(ip, str) else None, int(str(host_port))) if ok else None
    parts = str(raw).split("/")[0].rsplit(":", 2)
    if len(parts) < 2 or parts[-1] != str(port) or not parts[-2].isdigit():
        return None
    return (parts[0] if len(parts) == 3 else None), int(parts[-2])


def _pod_spec(doc: object) -> dict[str, object] | None:
    if not isinstance(doc, dict):
        return None
    spec = doc.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("jobTemplate"), dict):  # a CronJob
        spec = spec["jobTemplate"].get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("template"), dict):  # Deployment, StatefulSet, Job, …
        spec = spec["template"].get("spec")
    return spec if isinstance(spec, dict) and isinstance(spec.get("containers"), list) else None


def _words(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value[:512] if isinstance(v, (str, int, float))]
    if isinstance(value, str):
        try:
            return shlex.split(value[:65536])
        except ValueError:
            return value.split()
    return []


def _env(value: object) -> dict[str, str]:
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items() if v is not None}
    return dict(item.partition("=")[::2] for item in _list(value) if isinstance(item, str) and "=" in item)


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []
