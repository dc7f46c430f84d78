"""Preflight findings as values, and the collector every check adds to.

A finding names its severity, a stable code, the talk (filename and index,
or none for a vault-wide finding), the JSON path of the stored value it is
about, a message for people, and the ``expected``/``actual`` values a
reviewer needs. Consumers route on ``severity`` and ``code`` only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.strict_json import json_path

BLOCKING = "blocking"
WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    severity: str
    code: str
    path: str
    message: str
    filename: str | None = None
    talk_index: int | None = None
    expected: Any = None
    actual: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "actual": self.actual,
            "code": self.code,
            "expected": self.expected,
            "filename": self.filename,
            "message": self.message,
            "path": self.path,
            "severity": self.severity,
            "talk_index": self.talk_index,
        }

    def sort_key(self) -> tuple[int, int, str, str]:
        index = -1 if self.talk_index is None else self.talk_index
        return (0 if self.severity == BLOCKING else 1, index, self.code, self.path)


@dataclass(frozen=True)
class TalkRef:
    """Where one talk sits: its index and filename, for paths and findings."""

    index: int
    filename: str | None

    def path(self, *keys: str | int) -> str:
        return json_path("$", "talks", self.index, *keys)


@dataclass
class Findings:
    items: list[Finding] = field(default_factory=list)

    def block(
        self, code: str, path: str, message: str, talk: TalkRef | None = None, **values: Any
    ) -> None:
        """A stored claim that disagrees, a collision, an absent claimed artifact."""
        self._keep(Finding(BLOCKING, code, path, message), talk, values)

    def warn(
        self, code: str, path: str, message: str, talk: TalkRef | None = None, **values: Any
    ) -> None:
        """Evidence absent or a comparison that cannot be made."""
        self._keep(Finding(WARNING, code, path, message), talk, values)

    def _keep(self, finding: Finding, talk: TalkRef | None, values: dict[str, Any]) -> None:
        self.items.append(
            Finding(
                finding.severity,
                finding.code,
                finding.path,
                finding.message,
                None if talk is None else talk.filename,
                None if talk is None else talk.index,
                values.get("expected"),
                values.get("actual"),
            )
        )

    def sorted(self) -> list[Finding]:
        return sorted(self.items, key=Finding.sort_key)

    def counts(self) -> tuple[int, int, dict[str, int]]:
        blocking = sum(1 for f in self.items if f.severity == BLOCKING)
        by_code = Counter(f.code for f in self.items)
        return blocking, len(self.items) - blocking, dict(sorted(by_code.items()))
