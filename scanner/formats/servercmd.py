"""What a model server's command line serves: the model, its aliases, host and port, read by one grammar.

Every server (vLLM, Ollama, llama.cpp's llama-server, TGI, SGLang, LMDeploy, TabbyAPI, …) is described by a
`CommandGrammar` from the catalogs: the regex that finds its invocation in a command line, its container
images, the flags that carry the model, host, port and aliases, whether the model may be the first
positional argument, the environment variables it reads for the same, and its defaults. `parse_argv` reads
any of them with the same code. Only those values are kept: the rest of a command line (an `--api-key`) is
never copied out,
nor a token written into the model's URL or before the host (`http://user:hf_…@host`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from scanner.secrets import safe_url

MAX_ARGS = 512
MAX_ARG = 4096


@dataclass(frozen=True)
class CommandGrammar:
    id: str  # vllm, ollama, llama-server, tgi, …
    name: str
    command: str  # regex searched in "argv0 argv1 …": where the server is invoked; its args follow the match
    images: tuple[str, ...] = ()  # regexes of container images whose entrypoint is this server
    image_env: tuple[tuple[str, str], ...] = ()  # what those images set (TGI's PORT=80)
    model_flags: tuple[str, ...] = ()
    positional_model: bool = False  # `vllm serve MODEL`
    host_flags: tuple[str, ...] = ()
    port_flags: tuple[str, ...] = ()
    alias_flags: tuple[str, ...] = ()  # each may take several values (`--served-model-name a b`)
    model_env: tuple[str, ...] = ()
    host_env: tuple[str, ...] = ()  # a value may be `host:port` (OLLAMA_HOST=0.0.0.0:11434)
    port_env: tuple[str, ...] = ()
    store_env: tuple[str, ...] = ()  # where it keeps weights (OLLAMA_MODELS; `HF_HOME/hub` = $HF_HOME + /hub)
    default_host: str | None = None
    default_port: int | None = None
    serves_store: bool = False  # serves every model of its store (Ollama) rather than one
    _rx: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _image_rx: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_rx", re.compile(self.command))
        object.__setattr__(self, "_image_rx", tuple(re.compile(i) for i in self.images))

    def args_after(self, argv: Sequence[str]) -> list[str] | None:
        """The arguments after this server's invocation in `argv`, or None when `argv` does not invoke it."""
        joined, ends, pos = [], [], 0
        for token in argv:
            joined.append(token)
            pos += len(token) + 1
            ends.append(pos - 1)
        m = self._rx.search(" ".join(joined))
        if m is None:
            return None
        return [t for t, end in zip(argv, ends, strict=True) if end > m.end()]

    def runs_image(self, image: str) -> bool:
        return any(rx.search(image) for rx in self._image_rx)


@dataclass(frozen=True)
class ServedModel:
    server: str  # the grammar's id
    model: str | None  # a path or a hub id, as written (None for a server of a whole store)
    aliases: tuple[str, ...]  # --served-model-name and the like: the names clients ask for
    host: str | None
    port: int | None
    defaulted: tuple[str, ...]  # which of "host", "port" are the server's defaults, not written anywhere
    store: str | None  # a weights directory its environment names
    source: str | None = None  # the unit, compose service or container that runs it
    published: tuple[tuple[str | None, int], ...] = ()  # (host address, port) the machine publishes it on
    model_on_host: str | None = None  # the model path as the machine sees it, through a bind mount


def find_server(argv: Sequence[str], grammars: Sequence[CommandGrammar]) -> tuple[CommandGrammar, list[str]] | None:
    """The first grammar whose server `argv` invokes, with the arguments that follow the invocation."""
    bounded = [a[:MAX_ARG] for a in argv[:MAX_ARGS]]
    for grammar in grammars:
        args = grammar.args_after(bounded)
        if args is not None:
            return grammar, args
    return None


def parse_args(grammar: CommandGrammar, args: Sequence[str], env: Mapping[str, str]) -> ServedModel:
    """The model, aliases, host and port in a server's arguments and environment (flags win over env)."""
    values = _flag_values(args[:MAX_ARGS], grammar)
    positional = _positional(args) if grammar.positional_model else None
    model = _keyless(_first(values, grammar.model_flags) or positional or _env(env, grammar.model_env))
    host, port = _bare_host(_first(values, grammar.host_flags)), _port(_first(values, grammar.port_flags))
    env_host = _env(env, grammar.host_env)
    if host is None and env_host:
        host, _, env_port = _split_host(env_host)
        port = port if port is not None else _port(env_port)
    port = port if port is not None else _port(_env(env, grammar.port_env))
    defaulted = tuple(n for n, v in (("host", host), ("port", port)) if v is None)
    aliases = tuple(dict.fromkeys(v for flag in grammar.alias_flags for v in values.get(flag, ())))
    return ServedModel(
        server=grammar.id,
        model=None if grammar.serves_store else model,
        aliases=aliases[:32],
        host=host if host is not None else grammar.default_host,
        port=port if port is not None else grammar.default_port,
        defaulted=defaulted,
        store=_store(env, grammar.store_env),
    )


def parse_argv(argv: Sequence[str], env: Mapping[str, str], grammars: Sequence[CommandGrammar]) -> ServedModel | None:
    found = find_server(argv, grammars)
    return parse_args(found[0], found[1], env) if found else None


def _flag_values(args: Sequence[str], grammar: CommandGrammar) -> dict[str, list[str]]:
    wanted = {*grammar.model_flags, *grammar.host_flags, *grammar.port_flags}
    multi = set(grammar.alias_flags)
    out: dict[str, list[str]] = {}
    i = 0
    while i < len(args):
        name, eq, inline = args[i].partition("=")
        i += 1
        if name not in wanted and name not in multi:
            continue
        if eq:
            out.setdefault(name, []).append(inline)
            continue
        while i < len(args) and not args[i].startswith("-"):
            out.setdefault(name, []).append(args[i])
            i += 1
            if name not in multi:
                break
    return out


def _first(values: Mapping[str, list[str]], flags: Sequence[str]) -> str | None:
    return next((values[f][-1] for f in flags if values.get(f)), None)


def _positional(args: Sequence[str]) -> str | None:
    """The first bare argument, when no option before it could have taken it as its value."""
    for arg in args:
        if not arg.startswith("-"):
            return arg
        if "=" not in arg:
            return None  # `--flag value` or a switch: which one is not known, so nothing is guessed
    return None


def _env(env: Mapping[str, str], names: Sequence[str]) -> str | None:
    return next((env[n][:MAX_ARG] for n in names if env.get(n)), None)


def _store(env: Mapping[str, str], names: Sequence[str]) -> str | None:
    """The first store directory the environment names; `HF_HOME/hub` is `$HF_HOME` plus `/hub`."""
    for entry in names:
        var, _, sub = entry.partition("/")
        value = env.get(var)
        if value:
            return value[:MAX_ARG].rstrip("/") + (f"/{sub}" if sub else "")
    return None


def _keyless(model: str | None) -> str | None:
    """A model given as a URL loses its user info, query and fragment: where a token rides (`?token=hf_…`)."""
    return safe_url(model) if model is not None and "://" in model else model


def _bare_host(value: str | None) -> str | None:
    """A host as written, without the `user:token@` some write before it."""
    return value.rpartition("@")[2] if value is not None else None


def _split_host(value: str) -> tuple[str, str, str]:
    """`0.0.0.0:11434` -> ("0.0.0.0", ":", "11434"); `[::1]:8000`; a bare host; `http://user:key@host:port`."""
    value = value.split("://", 1)[-1].split("/", 1)[0].rpartition("@")[2]
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        return host, ":", rest.lstrip(":")
    if value.count(":") == 1:
        return value.partition(":")
    return value, "", ""


def _port(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() and 0 < int(text) < 65536 else None
