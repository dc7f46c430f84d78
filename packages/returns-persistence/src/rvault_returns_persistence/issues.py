"""Validation errors as values: a JSON path, a stable code and a message.

A worker fixes its return field by field, so every finding names exactly
where it is (``$[0]["pattern_observations"]...``) and a code that tests and
tools can match on without parsing prose.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Issue:
    path: str
    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "path": self.path}


def child(path: str, key: str | int) -> str:
    """The JSON path of ``key`` below ``path`` (same notation as rvault_contracts.schemas)."""
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}[{json.dumps(key)}]"


class Collector:
    """Accumulates issues for one return; checks append, the validator reads them once."""

    def __init__(self) -> None:
        self.items: list[Issue] = []

    def add(self, path: str, code: str, message: str) -> None:
        self.items.append(Issue(path, code, message))

    def __len__(self) -> int:
        return len(self.items)


def is_int(value: object) -> bool:
    """A JSON integer (booleans are not numbers in any rvault contract)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    return (isinstance(value, int | float)) and not isinstance(value, bool)


def is_text(value: object) -> bool:
    """A string with at least one non-whitespace character."""
    return isinstance(value, str) and bool(value.strip())
