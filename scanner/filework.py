"""One detector on one view of a file, and what one file gave: the lowest part of the per-file work.

A detector's failure costs its file, never the scan; bytes it decoded (`Derived`) are matched in place by every
pattern matcher, as the file's own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from scanner.catalog import Catalog
from scanner.catalog.matcher import MAX_DISTINCT_PER_PATTERN, MatchTimeout
from scanner.detectors.contract import Derived, Detector
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.model import Skip, SkipReason
from scanner.options import ScanOptions
from scanner.selection import Selection
from scanner.sightings import Item
from scanner.targets.base import FileEntry, ReadFailure, Target
from scanner.targets.ownership import Ownership


@dataclass
class FileResult:
    """What one file gave: evidence and skips in order (once finished, a file's many skips of one reason grouped
    into one and its repeated sightings of one evidence bundled), and what was read. Built in a worker, folded by
    the parent."""

    items: list[Item] = field(default_factory=list)
    files_read: int = 0
    bytes_read: int = 0

    def add_all(self, evidence: Iterable[Evidence | Skip]) -> None:
        self.items.extend(evidence)

    def skip(self, skip: Skip) -> None:
        self.items.append(skip)


@dataclass(frozen=True)
class FileWork:
    """Everything the per-file analysis needs, the same in the parent and in every worker; `selection` is the
    detectors' needs compiled once."""

    target: Target
    catalog: Catalog
    options: ScanOptions
    detectors: Sequence[Detector]
    ownership: Ownership
    selection: Selection = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "selection", Selection(self.detectors, self.catalog))


def window_reader(target: Target, entry: FileEntry) -> Callable[[int, int], bytes]:
    def read(offset: int, size: int) -> bytes:
        try:
            return target.read_window(entry, offset, size)
        except ReadFailure:
            return b""  # the file changed or went away: the windows record it

    return read



def record_cut(view: FileView, out: FileResult, shown: str) -> None:
    cut = view.cut_matches
    if cut:
        detail = f"{cut} match(es) of values past {MAX_DISTINCT_PER_PATTERN} distinct per catalog pattern not kept"
        out.skip(Skip(shown, SkipReason.CAP_REACHED, detail))



def run_detector(
    work: FileWork, detector: Detector, view: FileView, out: FileResult, shown: str, failure: str | None = None
) -> None:
    """Run one detector on a view it needs; `failure` says why asking it whether it does failed. A failure costs
    this file, never the scan."""
    if failure is not None:
        out.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {failure}"))
        return
    try:
        items = out.items
        for item in detector.extract(view):
            if isinstance(item, Derived):
                match_derived(work, view, item, out)
            else:
                items.append(item)
    except MatchTimeout as exc:
        out.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {exc}"))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a detector bug (or a native panic) must cost one file, never the scan
        out.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {type(exc).__name__}"))



def match_derived(work: FileWork, view: FileView, derived: Derived, out: FileResult) -> None:
    """Bytes a detector decoded from its file, matched as the file's own by every pattern matcher, in place;
    a failure is the deriving detector's."""
    decoded = FileView(view.entry, derived.data, view.catalog, view.owner_of, view.read_path,
                       fixed_context=derived.context)
    for matcher in work.selection.matchers:
        out.add_all(matcher.extract(decoded))  # type: ignore[arg-type]  # a matcher derives nothing
    cut = decoded.cut_matches
    if cut and derived.cut_label:
        detail = f"{derived.cut_label}: {cut} match(es) past {MAX_DISTINCT_PER_PATTERN} distinct per pattern not kept"
        out.skip(Skip(view.path, SkipReason.CAP_REACHED, detail))
