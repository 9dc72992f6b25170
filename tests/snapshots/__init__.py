"""Reviewed snapshots of every tool's published contract (name, annotations, schemas)."""

from __future__ import annotations

import json
from typing import Any


def render_snapshot(described: dict[str, Any]) -> str:
    return json.dumps(described, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
