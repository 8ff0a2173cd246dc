"""The HTML page lays out every kind's table from the kind's declaration: the same columns, in the same order, as
the other human formats, so that a new kind shows up on the page without code of its own."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from scanner import api
from scanner.catalog import Catalog
from scanner.kinds import Inventory
from scanner.kinds.base import Cell, ReportTable
from scanner.options import ScanOptions
from scanner.render import render
from scanner.render._view import DETAILED, ReportOptions, table_of
from scanner.render.html import _detail
from scanner.targets import Walker, WalkOptions
from tests.conftest import sample_vm_copy


class _Headers(HTMLParser):
    """Each section's table headers, by the section's id."""

    def __init__(self) -> None:
        super().__init__()
        self.by_section: dict[str, list[str]] = {}
        self._section: str | None = None
        self._in_th = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section":
            self._section = dict(attrs).get("id")
            self.by_section.setdefault(self._section or "", [])
        self._in_th = tag == "th"

    def handle_endtag(self, tag: str) -> None:
        if tag == "th":
            self._in_th = False

    def handle_data(self, data: str) -> None:
        if self._in_th and self._section is not None:
            self.by_section[self._section].append(data)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Inventory:
    root = sample_vm_copy(tmp_path_factory.mktemp("html-tables") / "vm")
    return api.scan(Walker(str(root), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)


def test_every_kind_with_entries_shows_its_declared_columns_in_order(sample: Inventory) -> None:
    parser = _Headers()
    parser.feed(render("html", sample))
    with_entries = [k for k in DETAILED if getattr(sample, k.key)]
    assert {"models", "sdks", "endpoints", "credentials", "kill_switches", "sessions", "routes", "agents",
            "clients", "mcp_servers"} <= {k.key for k in with_entries}
    for kind in with_entries:
        assert parser.by_section[kind.key.replace("_", "-")] == list(kind.columns), kind.key


@pytest.mark.parametrize("every", [False, True])
def test_every_kind_table_carries_the_kinds_cell_layouts(sample: Inventory, every: bool) -> None:
    """However a kind builds its table (another title, a column --all adds), the page lays it out as declared."""
    for kind in DETAILED:
        table = table_of(kind.key, sample, ReportOptions(all=every))
        assert table is None or table.cells == kind.cells, kind.key


def test_every_declared_cell_layout_names_a_column() -> None:
    for kind in DETAILED:
        extra = {"wired"} if kind.key == "models" else set()  # a column --all adds
        assert set(kind.cells) <= set(kind.columns) | extra, kind.key


def test_declared_cell_layouts_escape_and_keep_every_value() -> None:
    hostile = "<b>x</b>, /a b.txt:3"
    table = ReportTable("t", "T", ("text", "code", "host", "places", "flag", "status"),
                        ((hostile, hostile, "a.<b>.com", hostile + " (+4)", "no <i>", "re tired<"),),
                        cells={"code": Cell.CODE, "host": Cell.HOST, "places": Cell.PLACES, "flag": Cell.FLAG,
                               "status": Cell.STATUS})
    html = _detail(table, ReportOptions())
    assert "<b>" not in html and "<i>" not in html and "tired<" not in html
    assert html.count("&lt;b&gt;x&lt;/b&gt;") == 3  # text, code and the first place
    assert "<code>/a b.txt:3</code>" in html and '<span class="note">(+4)</span>' in html
    assert '<code class="host">a.<wbr>&lt;b&gt;.<wbr>com</code>' in html
    assert '<span class="no">no &lt;i&gt;</span>' in html and 'class="badge st-retired"' in html


def test_long_tables_are_cut_unless_all_and_say_so() -> None:
    table = ReportTable("t", "T", ("n",), tuple((str(i),) for i in range(250)))
    cut = _detail(table, ReportOptions())
    assert cut.count("<tr>") == 201 and "and 50 more row(s)" in cut
    assert _detail(table, ReportOptions(all=True)).count("<tr>") == 251
