"""Findings: what the registered rules (`scanner/findings/`) find in the whole inventory, derived once."""

from __future__ import annotations

from scanner.kinds.base import JsonShape, Kind
from scanner.model import Finding

KIND: Kind[Finding] = Kind(
    key="findings",
    entry=Finding,
    order=None,  # `derive_findings` orders them (severity, then id)
    title="Findings",
    columns=("severity", "id", "title", "where"),
    shapes={Finding: JsonShape(omit_empty=frozenset({"locations_cut"}))},
)
