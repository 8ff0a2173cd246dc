"""Every config parser is linear or bounded (issue 11): the pathological inputs that once took minutes, each
at two sizes; the cost of 16n must stay under 64x the cost of n (linear costs 16x, quadratic 256x: a factor of
four either way before noise on a loaded machine can flip the verdict). No absolute time limit: the ratio is what
is checked, best of three interleaved runs each, on inputs large enough for cache effects to have settled. Then
property tests: random and adversarial text never raises and stays bounded."""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.detectors.lockfiles import LockfileDetector
from scanner.fileview.view import FileView
from scanner.formats import config as fmt
from scanner.formats.config import ConfigItem
from scanner.model import FileMeta
from scanner.targets.base import FileEntry
from tests.bombs import package_lock
from tests.conftest import ScanFn, entry, write

Parser = Callable[[str], list[fmt.ConfigItem]]


def _costs(parse: Parser, small: str, large: str) -> tuple[float, float]:
    """CPU time of this process (other processes on the machine do not count), the collector paused (its
    passes grow with the live heap, not with the parser's algorithm), best of three; the two sizes alternate, so
    a burst of load on the machine falls on both rather than on one."""
    best = [float("inf"), float("inf")]
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            for i, text in enumerate((small, large)):
                start = time.process_time()
                with contextlib.suppress(fmt.ParseFailure, fmt.BudgetExceeded):
                    parse(text)
                best[i] = min(best[i], time.process_time() - start)
    finally:
        gc.enable()
    return best[0], best[1]


def assert_linear(parse: Parser, make: Callable[[int], str], n: int) -> None:
    small, large = _costs(parse, make(n), make(16 * n))
    # The floor keeps a sub-millisecond small run from turning scheduler noise into a ratio.
    assert large < 64 * max(small, 0.002), f"{parse.__name__}: n costs {small:.4f}s, 16n costs {large:.4f}s"


PATHOLOGICAL: list[tuple[str, Parser, Callable[[int], str], int]] = [
    # issue 11: `parse_env` took 10.6 s at 20k spaces, `parse_loose` 117 s at 2.5k, `clean_json` 16.9 s at 20k.
    ("env line of spaces", fmt.parse_env, lambda n: "A=" + " " * n + "x\n", 128_000),
    ("env spaces, no assignment", fmt.parse_env, lambda n: " " * n, 128_000),
    ("INI line", fmt.parse_ini, lambda n: "[s]\nk" + " " * n + "x\n", 128_000),
    ("conf line", fmt.parse_conf, lambda n: "k" + " " * n + "= v  " + " " * n + "#\n", 128_000),
    ("broken config.json", fmt.parse_json, lambda n: " a: b" + " " * n + '"z', 128_000),
    ("broken file read loosely", fmt.parse_loose, lambda n: " a: b" + " " * n + '"z', 128_000),
    ('JSON of \\"', fmt.parse_json, lambda n: '\\"' * n, 128_000),
    ("JSON then blanks", fmt.parse_json, lambda n: "{}" + " " * n, 128_000),
    ("blanks then JSON", fmt.parse_json, lambda n: " \n" * n + "{}", 128_000),
    ("JSON of /*", fmt.parse_json, lambda n: "/*" * n, 16_000),
    ("TOML of k = 0x1", fmt.parse_toml, lambda n: "".join(f"k{i} = 0x1\n" for i in range(n)), 2_000),
    ("JSON of 1e1", fmt.parse_json, lambda n: "[" + ",".join(["1e1"] * n) + "]", 4_000),
    ("JSON with many keys", fmt.parse_json, lambda n: "{" + ",".join(f'"k{i}": "v"' for i in range(n)) + "}", 4_000),
    (
        'TOML string of \\"',
        fmt.parse_toml,
        lambda n: 'a = """\n' + '\\"' * n + '\n"""\nb = "\\"' + "x" * n + '"\n',
        64_000,
    ),
    ("TOML with many keys", fmt.parse_toml, lambda n: "".join(f'k{i} = "v{i}"\n' for i in range(n)), 2_000),
    ("YAML with many keys", fmt.parse_yaml, lambda n: "".join(f"k{i}: v{i}\n" for i in range(n)), 2_000),
    ("HCL of quotes", fmt.parse_hcl, lambda n: '"' * n, 16_000),
    ("HCL of braces", fmt.parse_hcl, lambda n: "a = " + "{" * n, 8_000),
    ("Lua of braces", fmt.parse_lua, lambda n: "a = " + "{" * n, 8_000),
    ("Lua of calls then braces", fmt.parse_lua, lambda n: "(" * n + "}" * n, 8_000),
    ("Lua of tables then blocks", fmt.parse_lua, lambda n: "{" * n + "if " * n + "end " * n, 4_000),
    ("Lua of long comment openers", fmt.parse_lua, lambda n: "--[==[" * n, 16_000),
    ("Lua of key chains", fmt.parse_lua, lambda n: "a." * n + "= 1", 8_000),
    ("systemd line", fmt.parse_systemd, lambda n: "[Service]\nEnvironment=" + "A=1 " * n + "\n", 8_000),
]


@pytest.mark.parametrize(("name", "parse", "make", "n"), PATHOLOGICAL, ids=[p[0] for p in PATHOLOGICAL])
def test_pathological_input_costs_linear_time(name: str, parse: Parser, make: Callable[[int], str], n: int) -> None:
    assert_linear(parse, make, n)


def test_the_ratio_check_catches_a_quadratic_parser() -> None:
    # The check itself must keep its teeth with the wider gap: a search from the top for every character.
    def quadratic(text: str) -> list[ConfigItem]:
        found = sum(text.count(" ", 0, i) for i in range(len(text)))
        return [ConfigItem(("spaces",), str(found), None)]

    with pytest.raises(AssertionError, match="16n costs"):
        assert_linear(quadratic, lambda n: " " * n, 4_000)


def test_a_package_lock_costs_linear_time_in_its_packages(catalog: Catalog) -> None:
    # Each package's line was searched from the top of the text (a real 17 MB lockfile: over ten minutes); only
    # the pins a catalog knows are looked for now. The bomb test reads 60,000 packages without a clock; this is
    # the ratio that catches a search per pin coming back.
    def pins(text: str) -> list[ConfigItem]:
        data = text.encode()
        view = FileView(FileEntry("/srv/app/package-lock.json", len(data), 0o100644, 0, 0), data, catalog,
                        lambda _e: FileMeta("0644", "root:root"), lambda _p, _n: None)
        found = list(LockfileDetector().extract(view))
        assert len(found) == 1  # the one pin the catalog knows, read whole
        return []

    assert_linear(pins, lambda n: package_lock(n, {"openai": "4.0.0"}).decode(), 4_000)


def test_line_numbers_stay_exact_with_many_keys() -> None:
    # Line numbers come from one offset map, not from searching for each value (which grew quadratically).
    text = "{\n" + ",\n".join(f'  "k{i}": "same"' for i in range(5000)) + "\n}\n"
    items = fmt.parse_json(text)
    assert [item.line for item in items] == list(range(2, 5002))
    toml = "".join(f"[t{i}]\nvalue = 1\n" for i in range(3000))
    assert [item.line for item in fmt.parse_toml(toml)] == list(range(2, 6001, 2))


def test_line_map() -> None:
    lines = fmt.LineMap("a\nbc\n\nd")
    assert [lines.line(i) for i in range(8)] == [1, 1, 2, 2, 2, 3, 4, 4]


# --- the detector records what it could not read -----------------------------------------------------


def test_a_broken_file_leaves_a_parse_error_trace(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(
        tmp_path, "/etc/agent/config.json", '{\n  "model": "muse-9.1",\n  "base_url": "https://x.internal/v1"\n  oops\n'
    )
    _, doc = scan_dir(tmp_path)
    skip = entry(doc, "skipped", path="/etc/agent/config.json")
    assert skip["reason"] == "parse-error"
    assert skip["detail"].startswith("JSON: JSONDecodeError at line 4")
    assert "2 setting(s) read line by line" in skip["detail"]
    model = entry(doc, "models", name="muse-9.1")
    assert [(loc["line"], loc["parse_error"]) for loc in model["locations"]] == [(2, True)]


def test_a_file_over_its_work_budget_is_recorded_and_the_scan_goes_on(tmp_path: Path, scan_dir: ScanFn) -> None:
    levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i, name in enumerate("bcdef", 1):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{'abcdefghi'[i - 1]}"] * 9) + "]")
    write(tmp_path, "/etc/agent/bomb.yaml", "model: muse-9.1\n" + "\n".join(levels) + "\n")
    write(tmp_path, "/etc/agent/next.yaml", "model: muse-9.2\n")
    _, doc = scan_dir(tmp_path)
    skip = entry(doc, "skipped", path="/etc/agent/bomb.yaml")
    assert skip["reason"] == "budget-exceeded"
    assert "YAML nodes" in skip["detail"]
    assert entry(doc, "models", name="muse-9.1")["wired"]  # what was read before the cut counts
    assert entry(doc, "models", name="muse-9.2")["wired"]


def test_yaml_uses_the_c_loader_when_present() -> None:
    import yaml

    if getattr(yaml, "__with_libyaml__", False):
        assert fmt.YAML_LOADER is yaml.CSafeLoader
    else:
        assert fmt.YAML_LOADER is yaml.SafeLoader


# --- properties: never raises, bounded -------------------------------------------------------------

_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_PUNCT = list("{}[]()\"',:=#;/*\\\n\r\t <>&!-.0123456789abkeyxKEY_\ufeff")
_LUA = ["--[[", "function ", "end ", "local ", ".."]
_PIECES = [*_PUNCT, *_LUA, "export ", "[[", "]]", '"""', "'''", "<<EOF\n", "EOF\n", "&a ", "*a", "- ", "k = ", "0x1"]
_ADVERSARIAL = st.lists(st.sampled_from(_PIECES), max_size=120).map("".join)
TEXTS = st.text(max_size=400) | _ADVERSARIAL

PARSERS: list[Parser] = [
    fmt.parse_json,
    fmt.parse_toml,
    fmt.parse_yaml,
    fmt.parse_ini,
    fmt.parse_conf,
    fmt.parse_env,
    fmt.parse_systemd,
    fmt.parse_hcl,
    fmt.parse_lua,
    fmt.parse_loose,
]


@pytest.mark.parametrize("parse", PARSERS, ids=[p.__name__ for p in PARSERS])
def test_parser_never_raises_and_stays_bounded(parse: Parser) -> None:
    @_SETTINGS
    @given(TEXTS)
    def check(text: str) -> None:
        try:
            items = parse(text)
        except fmt.ParseFailure:
            return
        except fmt.BudgetExceeded as cut:
            items = cut.items
        assert len(items) <= max(fmt.MAX_ITEMS, len(text))
        n_lines = text.count("\n") + len(text.splitlines()) + 1
        for item in items:
            assert isinstance(item, fmt.ConfigItem) and isinstance(item.value, str)
            assert item.line is None or 1 <= item.line <= n_lines

    check()


def test_json_token_list_is_bounded_but_cleaning_is_not() -> None:
    # Past the token list's bound the file is read in part: its head's values, and the cut with its counts.
    text = "[" + "0," * fmt.MAX_JSON_TOKENS + "0]"
    with pytest.raises(fmt.BudgetExceeded) as cut:
        fmt.parse_json(text)
    assert len(cut.value.items) == fmt.MAX_ITEMS - 1 and cut.value.items[0].path == ("[0]",)  # the list is one
    assert f"read the first {fmt.MAX_JSON_TOKENS:,}" in cut.value.detail and f"of {len(text):,}" in cut.value.detail
    assert fmt.clean_json(text + "// end") == text + "      "  # agent_configs still gets the whole cleaned file


def test_yaml_is_read_as_events_within_the_budget() -> None:
    # A million one-line sequence items: the budget stops the event stream; no node tree is ever built.
    with pytest.raises(fmt.BudgetExceeded) as cut:
        fmt.parse_yaml("- a\n" * (1 << 20))
    assert len(cut.value.items) == fmt.MAX_ITEMS - 1
    assert cut.value.items[-1].line == fmt.MAX_ITEMS - 1
    # Anchors, aliases, merge keys and complex keys still read as the composer would.
    text = "base: &b {x: 1, y: [2, 3]}\nuse:\n  <<: *b\n  z: *b\n? [complex, key]\n: ignored\nafter: ok\n"
    got = {(item.path, item.value, item.line) for item in fmt.parse_yaml(text)}
    assert (("use", "<<", "x"), "1", 1) in got
    assert (("use", "z", "y", "[1]"), "3", 1) in got
    assert (("after",), "ok", 7) in got
    assert not any("ignored" == item[1] for item in got)
