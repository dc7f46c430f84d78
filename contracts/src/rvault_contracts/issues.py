"""Findings as values: one ``Issue`` and one ``Collector`` for every owner.

Every owner's reports and refusals put issues on stdout (a validation
report's ``errors``, a read or migration report's ``warnings``, a refusal's
``issues``, a manifest status), and conformance compares them across owners:
a consumer matches a producer's finding by its ``code`` and ``path``. Four
private issue types with two argument orders made every hand-off a place to
get the order wrong, so there is one value here, built with one argument
order, ``(code, path, message)``, everywhere, and rendered one way.

A check never raises on bad data: it adds an issue and goes on, so a report
can explain every problem while a refusal names the first one. ``severity``
separates what makes an input unusable (``error``) from what a report must
mention but must not refuse on (``warning``: the spec's per-record evidence
trouble). ``validator`` is the JSON Schema keyword a schema issue broke
(jsonschema's name for it; see ``rvault_contracts.schemas.schema_issues``),
for messages and refusal context that name it.

The JSON shape of an issue is whatever its artifact's schema gives its issue
object; today every registered one is ``{"code", "message", "path"}``
(:data:`ISSUE_KEYS`, proven by the contracts tests), and severity is carried
by the list an issue is reported in, not by a key. A contract that wants more
of the value passes its keys to :meth:`Issue.to_dict`; nothing here restates
a schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any, Final, Literal

__all__ = [
    "ERROR",
    "ISSUE_KEYS",
    "WARNING",
    "Collector",
    "Issue",
    "Severity",
    "render",
]

Severity = Literal["error", "warning"]
ERROR: Final = "error"
WARNING: Final = "warning"

# The keys of the issue object of every registered schema, in no particular
# order (artifact encoding sorts keys).
ISSUE_KEYS: Final = ("code", "message", "path")


@dataclass(frozen=True)
class Issue:
    """One finding: a stable ``code``, the JSON ``path`` it is about, a ``message``."""

    code: str
    path: str
    message: str
    severity: Severity = field(default=ERROR, kw_only=True)
    validator: str | None = field(default=None, kw_only=True)

    def to_dict(self, keys: Iterable[str] = ISSUE_KEYS) -> dict[str, Any]:
        """The issue object of a contract whose issue object has ``keys``."""
        chosen = tuple(keys)
        unknown = sorted(set(chosen) - _FIELDS)
        if unknown:
            raise ValueError(f"an Issue has no field {unknown[0]!r}")
        return {key: getattr(self, key) for key in chosen}

    def sort_key(self) -> tuple[str, str, str]:
        """Report order: where (document order of paths as text), then code, then message."""
        return (self.path, self.code, self.message)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR


_FIELDS: Final = frozenset(f.name for f in fields(Issue))


def render(issues: Iterable[Issue], keys: Iterable[str] = ISSUE_KEYS) -> list[dict[str, Any]]:
    """The JSON list of ``issues`` (see :meth:`Issue.to_dict`), in the order given."""
    chosen = tuple(keys)
    return [issue.to_dict(chosen) for issue in issues]


class Collector:
    """An append-only list of issues that one input's checks share.

    Checks add to it and go on; the caller reads it once: ``errors`` refuse,
    ``warnings`` are reported beside a success.
    """

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Issue] = ()) -> None:
        self.items: list[Issue] = list(items)

    def add(
        self,
        code: str,
        path: str,
        message: str,
        *,
        severity: Severity = ERROR,
        validator: str | None = None,
    ) -> None:
        self.items.append(Issue(code, path, message, severity=severity, validator=validator))

    def warn(self, code: str, path: str, message: str) -> None:
        self.add(code, path, message, severity=WARNING)

    def extend(self, issues: Iterable[Issue]) -> None:
        self.items.extend(issues)

    def __iter__(self) -> Iterator[Issue]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def errors(self) -> tuple[Issue, ...]:
        return tuple(issue for issue in self.items if issue.is_error)

    @property
    def warnings(self) -> tuple[Issue, ...]:
        return tuple(issue for issue in self.items if not issue.is_error)

    @property
    def has_errors(self) -> bool:
        return any(issue.is_error for issue in self.items)

    def ordered(self) -> list[Issue]:
        """Each distinct issue once, in report order (:meth:`Issue.sort_key`)."""
        return sorted(set(self.items), key=Issue.sort_key)

    def to_json(self, keys: Iterable[str] = ISSUE_KEYS) -> list[dict[str, Any]]:
        return render(self.items, keys)
