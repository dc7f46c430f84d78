"""Assessment results as values.

An assessment never raises on bad data: it collects every issue with a stable
code and the JSON path of the offending value, so the reader can refuse with
the first fatal issue while the migration and mutation paths can explain all
of them. ``fatal`` issues make the database unusable as prior state;
``warning`` issues are per-record evidence trouble the spec says must not
refuse the whole vault (a malformed PPTX visual-evidence receipt).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rvault_contracts.strict_json import is_integer as is_int  # noqa: F401 - re-exported
from rvault_contracts.strict_json import json_path as child  # noqa: F401 - re-exported
from rvault_contracts.strict_json import type_name as json_type  # noqa: F401 - re-exported

Severity = Literal["fatal", "warning"]


@dataclass(frozen=True)
class Issue:
    code: str
    path: str
    message: str
    severity: Severity = "fatal"

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "path": self.path}


@dataclass
class Issues:
    """An append-only collector shared by the record checkers."""

    items: list[Issue] = field(default_factory=list)

    def fatal(self, code: str, path: str, message: str) -> None:
        self.items.append(Issue(code, path, message, "fatal"))

    def warn(self, code: str, path: str, message: str) -> None:
        self.items.append(Issue(code, path, message, "warning"))


@dataclass(frozen=True)
class Assessment:
    """The outcome of assessing one database document."""

    root_version: int | None
    issues: tuple[Issue, ...]

    @property
    def fatal(self) -> tuple[Issue, ...]:
        return tuple(i for i in self.issues if i.severity == "fatal")

    @property
    def warnings(self) -> tuple[Issue, ...]:
        return tuple(i for i in self.issues if i.severity == "warning")

    @property
    def ok(self) -> bool:
        return not self.fatal

    @property
    def current(self) -> bool:
        return self.ok and self.root_version == 1
