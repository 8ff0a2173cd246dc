"""Model servers found in systemd units, shell wrappers, Compose files and Kubernetes manifests."""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.formats.servercmd import ServedModel, parse_argv
from scanner.formats.servercontainers import served_by_compose, served_by_pod
from scanner.formats.serverunits import merge_units, parse_env_file, served_by_script, served_by_unit
from scanner.kinds.local_models.catalog_index import SECTION as LOCAL_CATALOG

VLLM_UNIT = """\
[Unit]
Description=vLLM OpenAI-compatible server
After=network-online.target

[Service]
User=vllm
EnvironmentFile=-/etc/default/vllm
Environment="HF_HOME=/srv/hf" "VLLM_PORT=9000"
ExecStart=/opt/vllm/bin/vllm serve /srv/models/Qwen3-32B \\
    --served-model-name qwen3-32b qwen-local \\
    --host 127.0.0.1 --port ${VLLM_PORT} \\
    --api-key sk-local-0123456789 --max-model-len 32768
Restart=always

[Install]
WantedBy=multi-user.target
"""

OLLAMA_UNIT = """\
[Unit]
Description=Ollama Service

[Service]
ExecStart=/usr/local/bin/ollama serve
User=ollama
Group=ollama
Restart=always
Environment="PATH=/usr/local/bin:/usr/bin:/bin"
"""

OLLAMA_DROP_IN = """\
[Service]
Environment="OLLAMA_HOST=0.0.0.0:11500"
Environment="OLLAMA_MODELS=/data/ollama"
"""


def test_systemd_unit_running_vllm(catalog: Catalog) -> None:
    unit = merge_units([VLLM_UNIT])
    assert unit.user == "vllm" and unit.environment_files == ["/etc/default/vllm"]
    env_files = {"/etc/default/vllm": parse_env_file("# defaults\nexport HF_HUB_CACHE=/var/cache/hf\n")}
    (served,) = served_by_unit(unit, LOCAL_CATALOG.of(catalog).servers, env_files, name="vllm.service")
    assert served == ServedModel(server="vllm", model="/srv/models/Qwen3-32B", aliases=("qwen3-32b", "qwen-local"),
                                 host="127.0.0.1", port=9000, defaulted=(), store="/var/cache/hf",
                                 source="vllm.service")  # fmt: skip
    assert "sk-local" not in repr(served)  # only the grammar's values are kept


def test_ollama_unit_and_its_drop_in(catalog: Catalog) -> None:
    plain = served_by_unit(merge_units([OLLAMA_UNIT]), LOCAL_CATALOG.of(catalog).servers)
    assert [(s.server, s.model, s.host, s.port, s.defaulted) for s in plain] == [
        ("ollama", None, "127.0.0.1", 11434, ("host", "port"))
    ]
    (moved,) = served_by_unit(merge_units([OLLAMA_UNIT, OLLAMA_DROP_IN]), LOCAL_CATALOG.of(catalog).servers)
    assert (moved.host, moved.port, moved.store, moved.defaulted) == ("0.0.0.0", 11500, "/data/ollama", ())
    reset = merge_units([OLLAMA_UNIT, "[Service]\nExecStart=\nExecStart=/usr/bin/true\n"])
    assert served_by_unit(reset, LOCAL_CATALOG.of(catalog).servers) == []


def test_shell_wrapper_running_llama_server(catalog: Catalog) -> None:
    script = """#!/bin/sh
# start the local coder model
MODEL=/models/qwen2.5-coder-7b-instruct-q4_k_m.gguf
export PORT=8081
exec nohup /opt/llama.cpp/build/bin/llama-server -m "$MODEL" \\
  --host 0.0.0.0 --port "$PORT" -a qwen-coder -c 16384 >/var/log/llama.log 2>&1
"""
    (served,) = served_by_script(script, LOCAL_CATALOG.of(catalog).servers, name="/usr/local/bin/start-coder")
    assert (served.server, served.aliases) == ("llama-server", ("qwen-coder",))
    assert served.model == "/models/qwen2.5-coder-7b-instruct-q4_k_m.gguf"
    assert (served.host, served.port, served.source) == ("0.0.0.0", 8081, "/usr/local/bin/start-coder")


COMPOSE = """\
services:
  tgi:
    image: ghcr.io/huggingface/text-generation-inference:3.3.4
    command: --model-id /data/Qwen3-32B --max-input-tokens 4096
    ports:
      - "127.0.0.1:8080:80"
    volumes:
      - /srv/models:/data
    environment:
      - HF_TOKEN=${HF_TOKEN}
  ollama:
    image: ollama/ollama:0.12.3
    ports: ["11434:11434"]
    volumes:
      - type: bind
        source: /srv/ollama
        target: /root/.ollama
  web:
    image: nginx:1.27
    command: nginx -g 'daemon off;'
  vllm:
    image: vllm/vllm-openai:v0.11.0
    entrypoint: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    command: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--served-model-name", "llama-8b", "--port", "8001"]
    ports:
      - target: 8001
        published: 18001
        host_ip: 127.0.0.1
"""


def test_compose_file_running_tgi_ollama_and_vllm(catalog: Catalog) -> None:
    found = {s.source: s for s in served_by_compose(yaml.safe_load(COMPOSE), LOCAL_CATALOG.of(catalog).servers)}
    assert set(found) == {"tgi", "ollama", "vllm"}
    tgi = found["tgi"]
    assert (tgi.server, tgi.model, tgi.port, tgi.published) == ("tgi", "/data/Qwen3-32B", 80, (("127.0.0.1", 8080),))
    assert (tgi.model_on_host, tgi.store) == ("/srv/models/Qwen3-32B", "/data")
    assert (found["ollama"].host, found["ollama"].port, found["ollama"].published) == ("0.0.0.0", 11434,
                                                                                       ((None, 11434),))  # fmt: skip
    vllm = found["vllm"]
    assert (vllm.model, vllm.aliases, vllm.published) == ("meta-llama/Llama-3.1-8B-Instruct", ("llama-8b",),
                                                          (("127.0.0.1", 18001),))  # fmt: skip


def test_kubernetes_deployment_running_vllm(catalog: Catalog) -> None:
    doc = yaml.safe_load("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen}
spec:
  template:
    spec:
      volumes:
        - name: models
          hostPath: {path: /mnt/models}
      containers:
        - name: vllm
          image: docker.io/vllm/vllm-openai:latest
          args: ["Qwen/Qwen3-8B", "--served-model-name", "qwen3", "--port", "8000"]
          env:
            - {name: HF_HOME, value: /models/hf}
          ports: [{containerPort: 8000, hostPort: 30080}]
          volumeMounts: [{name: models, mountPath: /models}]
        - name: sidecar
          image: busybox
""")
    (served,) = served_by_pod(doc, LOCAL_CATALOG.of(catalog).servers)
    assert (served.source, served.model, served.aliases, served.port) == ("vllm", "Qwen/Qwen3-8B", ("qwen3",), 8000)
    assert (served.store, served.published) == ("/models/hf/hub", ((None, 30080),))


def test_positional_model_is_not_guessed_after_an_ambiguous_flag(catalog: Catalog) -> None:
    grammars = LOCAL_CATALOG.of(catalog).servers
    served = parse_argv(["vllm", "serve", "--uvicorn-log-level=info", "Qwen/Qwen3-8B"], {}, grammars)
    assert served is not None and served.model == "Qwen/Qwen3-8B"
    served = parse_argv(["vllm", "serve", "--trust-remote-code", "Qwen/Qwen3-8B"], {}, grammars)
    assert served is not None and served.model is None
    served = parse_argv(["lmdeploy", "serve", "api_server", "internlm/internlm2_5-7b-chat", "--server-port", "9"],
                        {}, grammars)  # fmt: skip
    assert served is not None and (served.server, served.port) == ("lmdeploy", 9)
    assert served.model == "internlm/internlm2_5-7b-chat"
    assert parse_argv(["pip", "install", "vllm"], {}, grammars) is None


HF_TOKEN = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"


def test_tokens_in_a_servers_host_or_model_url_are_not_kept(catalog: Catalog) -> None:
    grammars = LOCAL_CATALOG.of(catalog).servers
    unit = merge_units(
        [OLLAMA_UNIT, f'[Service]\nEnvironment="OLLAMA_HOST=https://admin:{HF_TOKEN}@gpu1.lan:11500/"\n']
    )
    (served,) = served_by_unit(unit, grammars)
    assert (served.host, served.port) == ("gpu1.lan", 11500)
    url = f"https://user:{HF_TOKEN}@hf.example/org/model?token={HF_TOKEN}"
    served = parse_argv(["vllm", "serve", "--model", url, "--host", f"u:{HF_TOKEN}@0.0.0.0"], {}, grammars)
    assert served is not None and (served.model, served.host) == ("https://hf.example/org/model", "0.0.0.0")
    assert HF_TOKEN not in repr(served)


@given(st.lists(st.text(max_size=40), max_size=30), st.dictionaries(st.text(max_size=20), st.text(max_size=40)))
def test_command_lines_of_any_shape_never_raise(argv: list[str], env: dict[str, str]) -> None:
    from scanner.catalog import load

    grammars = _GRAMMARS or _GRAMMARS.extend(LOCAL_CATALOG.of(load()).servers) or _GRAMMARS
    for prefix in ([], ["vllm", "serve"], ["llama-server"], ["ollama", "serve"]):
        served = parse_argv(prefix + argv, env, grammars)
        assert served is None or served.port is None or 0 < served.port < 65536
    served_by_script("\n".join(argv), grammars)
    served_by_unit(merge_units(["[Service]\n" + "\n".join(argv)]), grammars)


_GRAMMARS: list = []  # type: ignore[type-arg]
