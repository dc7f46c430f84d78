"""Assessment results as values.

An assessment never raises on bad data: its checks add every finding to one
``rvault_contracts.issues.Collector`` (a stable code and the JSON path of the
offending value), so the reader can refuse with the first fatal issue while
the migration and mutation paths can explain all of them. Fatal issues
(severity ``error``) make the database unusable as prior state; ``warning``
issues are per-record evidence trouble the spec says must not refuse the
whole vault (a malformed PPTX visual-evidence receipt).
"""

from __future__ import annotations

from dataclasses import dataclass

from rvault_contracts.issues import Issue
from rvault_contracts.strict_json import is_integer as is_int  # noqa: F401 - re-exported
from rvault_contracts.strict_json import json_path as child  # noqa: F401 - re-exported
from rvault_contracts.strict_json import type_name as json_type  # noqa: F401 - re-exported


@dataclass(frozen=True)
class Assessment:
    """The outcome of assessing one database document."""

    root_version: int | None
    issues: tuple[Issue, ...]

    @property
    def fatal(self) -> tuple[Issue, ...]:
        return tuple(i for i in self.issues if i.is_error)

    @property
    def warnings(self) -> tuple[Issue, ...]:
        return tuple(i for i in self.issues if not i.is_error)

    @property
    def ok(self) -> bool:
        return not self.fatal

    @property
    def current(self) -> bool:
        return self.ok and self.root_version == 1
