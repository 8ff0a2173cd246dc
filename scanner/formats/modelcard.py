"""A model card's YAML front matter (`README.md` of a Hugging Face repo): license and base model.

The card opens with `---`, a YAML block, and `---`. The keys read are the Hub's own: `license` (an id such
as `apache-2.0`, or `other` with `license_name` and `license_link`), `base_model` (one repo id or a list),
`pipeline_tag` and `library_name`. Only the first `MAX_FRONT` bytes are looked at, and YAML is read with
the safe loader.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

MAX_FRONT = 64 << 10
MAX_LIST = 16


@dataclass(frozen=True)
class ModelCard:
    license: str | None  # the license id; for `other`, its `license_name` when the card gives one
    license_link: str | None
    base_models: tuple[str, ...]
    pipeline_tag: str | None
    library_name: str | None


def front_matter(data: bytes) -> dict[str, object] | None:
    """The YAML mapping between the leading `---` lines, or None when the card has none (or it is broken)."""
    text = data[:MAX_FRONT].decode("utf-8", "replace").lstrip("\ufeff")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    except StopIteration:
        return None
    try:
        doc = yaml.safe_load("\n".join(lines[1:end]))
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def parse_card(data: bytes) -> ModelCard | None:
    meta = front_matter(data)
    if meta is None:
        return None

    def text(key: str) -> str | None:
        v = meta.get(key)
        return v.strip()[:200] if isinstance(v, str) and v.strip() else None

    license_id = text("license")
    if license_id == "other":
        license_id = text("license_name") or license_id
    bases = meta.get("base_model")
    base_models = (bases,) if isinstance(bases, str) else tuple(bases[:MAX_LIST]) if isinstance(bases, list) else ()
    return ModelCard(
        license=license_id,
        license_link=text("license_link"),
        base_models=tuple(b.strip()[:200] for b in base_models if isinstance(b, str) and b.strip()),
        pipeline_tag=text("pipeline_tag"),
        library_name=text("library_name"),
    )
