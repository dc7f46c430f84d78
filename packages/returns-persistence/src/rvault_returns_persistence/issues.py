"""Validation errors as values: a JSON path, a stable code and a message.

A worker fixes its return field by field, so every finding names exactly
where it is (``$[0]["pattern_observations"]...``) and a code that tests and
tools can match on without parsing prose.
"""

from __future__ import annotations

from dataclasses import dataclass

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_nonblank_string as is_text
from rvault_contracts.strict_json import is_number
from rvault_contracts.strict_json import json_path as child

__all__ = ["Collector", "Issue", "child", "is_int", "is_number", "is_text"]


@dataclass(frozen=True, order=True)
class Issue:
    path: str
    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "path": self.path}


class Collector:
    """Accumulates issues for one return; checks append, the validator reads them once."""

    def __init__(self) -> None:
        self.items: list[Issue] = []

    def add(self, path: str, code: str, message: str) -> None:
        self.items.append(Issue(path, code, message))

    def __len__(self) -> int:
        return len(self.items)
