"""A file's many skips of one reason are one skip with a count and its first few details: the skip list grows
with the files, not with their entries, and every reader of skips (schema, load, diff, renderers) takes it."""

from __future__ import annotations

from pathlib import Path

from scanner.diff.compare import diff_inventories
from scanner.inventory.document import dumps
from scanner.inventory.load import from_document
from scanner.kinds.models import ModelEvidence
from scanner.model import Location, Skip, SkipReason
from scanner.render import render
from scanner.render._view import ReportOptions
from scanner.skipgroups import FIRST, GROUP_AFTER, grouped
from tests import bombs
from tests.conftest import ScanFn, write


def _skips(n: int, path: str = "/a.jar", reason: SkipReason = SkipReason.PARSE_ERROR) -> list[Skip]:
    return [Skip(path, reason, f"member 'm{i}': BadZipFile") for i in range(n)]


def test_a_few_skips_of_one_reason_stay_as_they_are() -> None:
    items = [*_skips(GROUP_AFTER), *_skips(2, reason=SkipReason.CAP_REACHED)]
    assert grouped(items) == items


def test_many_skips_of_one_reason_in_one_file_are_one_where_the_first_was() -> None:
    model = ModelEvidence("gpt-5.5", Location("/b.json"))
    other = Skip("/b.json", SkipReason.PARSE_ERROR, "elsewhere")
    many = _skips(1_000)
    out = grouped([model, many[0], other, *many[1:], Skip("/a.jar", SkipReason.CAP_REACHED, "cut")])
    assert out[0] is model and out[2] is other and out[3].reason is SkipReason.CAP_REACHED
    group = out[1]
    assert isinstance(group, Skip)
    assert (group.path, group.reason, group.count) == ("/a.jar", SkipReason.PARSE_ERROR, 1000)
    assert group.detail == "1,000 parse-error skips in this file; the first: member 'm0': BadZipFile"
    assert group.members == tuple(f"member 'm{i}': BadZipFile" for i in range(FIRST))
    # Groups of groups (a file met again) keep the whole count.
    assert grouped([group] * 4)[0] == Skip(group.path, group.reason, group.detail.replace("1,000", "4,000", 1),
                                          4_000, group.members)


def test_a_grouped_skip_is_read_back_rendered_and_diffed(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/opt/app/lib/overlap.jar", bombs.overlapping_jar(2_000))
    inv, doc = scan_dir(tmp_path)  # the document is checked against the schema
    [group] = inv.skipped
    assert group.count == 2_000 and len(group.members) == FIRST
    assert len(dumps(inv)) < 20_000  # 2,000 skips were ~600 KB of report
    assert from_document(doc).skipped == inv.skipped
    assert not diff_inventories(from_document(doc), inv).changes
    wide = ReportOptions(all=True, wide=True)
    for fmt in ("markdown", "sarif", "cyclonedx"):
        assert render(fmt, inv, wide)
    assert "2,000 parse-error skips in this file" in render("table", inv, wide)
    assert "2,000 parse-error skips in this file" in render("html", inv)
