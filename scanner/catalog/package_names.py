"""Package names as their ecosystem compares them."""

from __future__ import annotations

import re


def package_key(ecosystem: str, name: str) -> str:
    """Names as the ecosystem compares them: PyPI per PEP 503 (`Claude_Agent_SDK` = `claude-agent-sdk`)."""
    if ecosystem == "pypi":
        return re.sub(r"[-_.]+", "-", name).lower()
    return name.lower()
