"""Source-code signatures are searched apart (the source detector alone reads them, in source files alone): a
source file's view has them, any other file's has none, and the hits of both sets together are one full search's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from scanner.catalog import Catalog
from scanner.catalog.matcher import Hits, Matcher, PatternKind
from scanner.fileview.view import FileView
from scanner.model import Context, FileMeta
from scanner.targets.base import FileEntry
from tests.conftest import ScanFn, entry, write

_CLIENT = b"""import anthropic
from anthropic import AnthropicBedrock

client = AnthropicBedrock(aws_region="us-east-1")
reply = client.messages.create(model="claude-opus-4-7", max_tokens=64, messages=[])
# api.anthropic.com, sk-ant-api03-not-a-key
"""


_SAMPLES = Path(__file__).parent / "data" / "source"


def _spans(hits: Hits) -> list[tuple[int, int, bytes]]:
    return sorted((h.start, h.end, h.text) for h in hits)


def _view(catalog: Catalog, path: str, data: bytes) -> FileView:
    return FileView(FileEntry(path, len(data), 0o100644, 0, 0), data, catalog, lambda e: FileMeta(), lambda p, n: None)


def test_both_sets_together_are_one_search(catalog: Catalog) -> None:
    # One search: the same patterns compiled as one set (signatures filed under another kind, so none is apart).
    one = Matcher([dataclasses.replace(r, kind=PatternKind.HOST) if r.kind is PatternKind.SIGNATURE else r
                   for r in catalog.matcher.rules])  # fmt: skip
    texts = [_CLIENT, *(p.read_bytes() for p in sorted(_SAMPLES.iterdir()) if p.name != "SOURCE.txt")]
    for data in texts:
        every = catalog.matcher.scan(data)
        common = catalog.matcher.scan(data, signatures=False)
        assert common == [h for h in every if h.kind is not PatternKind.SIGNATURE]
        assert _spans(every) == _spans(one.scan(data))
    assert {h.kind for h in catalog.matcher.scan(_CLIENT)} >= {PatternKind.SIGNATURE, PatternKind.MODEL}


def test_only_a_source_file_is_searched_for_signatures(catalog: Catalog) -> None:
    source = _view(catalog, "/srv/app/llm.py", _CLIENT)
    notes = _view(catalog, "/srv/app/NOTES.md", _CLIENT)
    assert (source.context, notes.context) == (Context.SOURCE, Context.DOCS)
    assert PatternKind.SIGNATURE in {h.kind for h in source.hits}
    assert [h for h in source.hits if h.kind is not PatternKind.SIGNATURE] == list(notes.hits)


def test_a_source_file_still_names_its_client(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/srv/app/llm.py", _CLIENT)
    write(tmp_path, "/srv/app/NOTES.md", _CLIENT)
    _, doc = scan_dir(tmp_path)
    client = entry(doc, "clients", provider="AnthropicBedrock", served_via="bedrock")
    assert {loc["path"] for loc in client["locations"]} == {"/srv/app/llm.py"}
