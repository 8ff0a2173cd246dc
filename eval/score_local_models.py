"""Scores the `local_models` section against the local-models truth: the models (name, store, presence, vendor),
their files' digests, the servers that serve them and the agents that use them."""

from __future__ import annotations

from typing import Any

from score import Section


def score(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    found = inv.get("local_models", [])
    sections = []
    key = lambda m: (m["name"], m["store"], m["present"], m.get("vendor"))  # noqa: E731
    models = Section("local models")
    expected = {key(m) for m in truth["models"]}
    reported = {key(e) for e in found}
    for k in sorted(expected, key=str):
        models.truth(k in reported, " ".join(map(str, k)))
    for k in sorted(reported, key=str):
        models.reported(k in expected, " ".join(map(str, k)))
    sections.append(models)
    for name, pairs in (
        ("local digests", lambda ms: {(f["path"], f["sha256"]) for m in ms for f in _files(m)}),
        ("local servers", lambda ms: {(m["name"], s if isinstance(s, str) else s["server"]) for m in ms
                                      for s in m.get("servers", [])}),
        ("local users", lambda ms: {(m["name"], u) for m in ms for u in m.get("used_by", [])}),
    ):
        sec = Section(name)
        want, got = pairs(truth["models"]), pairs(found)
        for p in sorted(want, key=str):
            sec.truth(p in got, " ".join(map(str, p)))
        for p in sorted(got, key=str):
            sec.reported(p in want, " ".join(map(str, p)))
        sections.append(sec)
    return sections


def _files(m: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in m.get("files", []) if f.get("sha256")]
