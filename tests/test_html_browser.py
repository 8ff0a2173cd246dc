"""The HTML report of sample_vm opened in a real headless Chromium: no console message, no network request from the
page, and a screenshot with the sessions chart. Skipped when Chromium is not installed (`.ci/run` installs it).

Console messages are read from Chromium's own log (`--enable-logging=stderr`); requests from its network log
(`--log-net-log`): a request the page starts carries the page's origin as initiator, while the browser's own
background requests carry none. Two control pages prove that both checks catch what they look for.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from scanner import api
from scanner.catalog import Catalog
from scanner.model import TargetInfo
from scanner.options import ScanOptions
from scanner.render import render
from scanner.render.html import vendor_colours_of
from scanner.targets import Walker, WalkOptions
from tests.conftest import sample_vm_copy
from tests.large_tree import build

CHROMIUM = next((p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium")
                 if p and Path(p).is_file()), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install -y chromium); the HTML report is not "
                             "checked in a browser")
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--no-first-run", "--enable-logging=stderr", "--v=0", "--hide-scrollbars"]


@dataclasses.dataclass(frozen=True)
class Visit:
    console: list[str]
    page_requests: list[str]
    dom: str


def visit(page: Path, work: Path, screenshot: Path | None = None, size: str = "1200,2200") -> Visit:
    """Open `page` in a fresh profile; what it logged, what it fetched, and its DOM (or a screenshot)."""
    work.mkdir(parents=True, exist_ok=True)
    netlog = work / "net.json"
    action = [f"--screenshot={screenshot}", f"--window-size={size}"] if screenshot else ["--dump-dom"]
    proc = subprocess.run(
        [str(CHROMIUM), *_FLAGS, f"--user-data-dir={work / 'profile'}", f"--log-net-log={netlog}", *action,
         page.as_uri()],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    log = json.loads(netlog.read_text(encoding="utf-8"))
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    starts = [e["params"] for e in log["events"] if e["type"] == start_job and "url" in e.get("params", {})]
    requests = [p["url"] for p in starts if p.get("initiator") != "not an origin"]
    return Visit(console, requests, proc.stdout)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Path:
    """sample_vm's HTML report, with the sessions and routes its session logs give."""
    base = tmp_path_factory.mktemp("browser")
    root = sample_vm_copy(base / "vm")
    inv = api.scan(Walker(str(root), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)
    inv = dataclasses.replace(inv, target=TargetInfo(inv.target.kind, "sample_vm"))
    page = base / "report.html"
    page.write_text(render("html", inv), encoding="utf-8")
    (base / "colours.json").write_text(json.dumps(vendor_colours_of(inv)), encoding="utf-8")
    return page


def test_report_loads_without_console_messages_or_requests(report: Path, tmp_path: Path) -> None:
    seen = visit(report, tmp_path / "dom")
    assert seen.console == []
    assert seen.page_requests == []
    assert '<svg class="chart"' in seen.dom and '<svg class="routes"' in seen.dom
    assert "2026-11-20: 2 session(s) with self-hosted" in seen.dom
    assert "2026-11-20: 1 session(s) with openai" in seen.dom


def test_screenshot_shows_the_sessions_chart(report: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    seen = visit(report, tmp_path / "shot", screenshot=shot, size="1200,3600")
    assert seen.console == [] and seen.page_requests == []
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    # The chart's two vendors (openai, self-hosted) are in the picture in the colours the report gives them over
    # all its vendors, so openai has the same colour in the chart, the routes diagram and every other picture
    # (PNG is compressed: decode it to look at pixels).
    colours = json.loads((report.parent / "colours.json").read_text(encoding="utf-8"))
    pixels = _pixels(png)
    assert {_rgb(colours["openai"]), _rgb(colours["self-hosted"])} <= pixels
    if os.environ.get("MODELCENSUS_SCREENSHOT"):  # how docs/report.png is made
        Path(os.environ["MODELCENSUS_SCREENSHOT"]).write_bytes(png)


@pytest.fixture(scope="module")
def large_report(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Path:
    """A large tree's report: 36 aliases over five routes, four months of sessions, 1,800 package-only ids."""
    base = tmp_path_factory.mktemp("large")
    root = build(base / "vm")
    inv = api.scan(Walker(str(root), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)
    inv = dataclasses.replace(inv, target=TargetInfo(inv.target.kind, "large_vm"))
    page = base / "large.html"
    page.write_text(render("html", inv), encoding="utf-8")
    return page


def test_large_report_fits_1400_pixels(large_report: Path, tmp_path: Path) -> None:
    """At 1400 px the page body is 1200 px wide and centred: whatever overflowed it would paint in the right margin.
    Every table sits in a scrolling container, so the margin stays blank."""
    html = large_report.read_text(encoding="utf-8")
    assert html.count("<table>") == html.count('<div class="scroll"><table>')
    assert ">2026-08-01<" in html or ">2026-09-01<" in html  # month ticks with the year on a real time axis
    assert "never observed" in html
    shot = tmp_path / "large.png"
    size = os.environ.get("MODELCENSUS_SCREENSHOT_SIZE", "1400,4000")  # docs/report-large.png: 1400,7000
    seen = visit(large_report, tmp_path / "shot", screenshot=shot, size=size)
    assert seen.console == [] and seen.page_requests == []
    png = shot.read_bytes()
    assert _pixels(png, from_x=1330) == {(255, 255, 255)}, "something overflows the page to the right"
    if os.environ.get("MODELCENSUS_SCREENSHOT_LARGE"):  # how docs/report-large.png is made
        Path(os.environ["MODELCENSUS_SCREENSHOT_LARGE"]).write_bytes(png)


def test_controls_prove_the_checks_catch_loads(tmp_path: Path) -> None:
    with_csp = tmp_path / "csp.html"
    with_csp.write_text("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
                        "content=\"default-src 'none'\"></head><body><img src=\"http://127.0.0.1:9/a.png\">x</body>"
                        "</html>", encoding="utf-8")
    without = tmp_path / "plain.html"
    without.write_text('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/b.png">x</body></html>',
                       encoding="utf-8")
    blocked = visit(with_csp, tmp_path / "a")
    assert blocked.console and blocked.page_requests == []
    loaded = visit(without, tmp_path / "b")
    assert "http://127.0.0.1:9/b.png" in loaded.page_requests


def _rgb(colour: str) -> tuple[int, int, int]:
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))


def _pixels(png: bytes, from_x: int = 0) -> set[tuple[int, int, int]]:
    """The distinct RGB colours of an 8-bit RGB/RGBA, non-interlaced PNG (what Chromium writes), in the columns
    from `from_x` on."""
    import struct
    import zlib

    pos, chunks, header = 8, [], b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind, data = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = data
        elif kind == b"IDAT":
            chunks.append(data)
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(chunks)), width * bpp
    prev, out = bytearray(stride), set()
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        out.update(tuple(line[i:i + 3]) for i in range(from_x * bpp, stride, bpp))
        prev = line
    return out
