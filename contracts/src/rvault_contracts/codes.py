"""Declared codes: every code a tool can print, named once with the next action it names.

A code is a contract: users, tests and other owners match on it, and each
package README lists them. So each package declares its codes in one module,
``rvault_<owner>.codes``, with one :func:`refusal`, :func:`error` or
:func:`issue` line per code, and the README tables are rendered from those
declarations (``tools/refusal_codes.py --write``), not searched for in the
source. ``tools/tests/test_refusal_codes.py`` keeps a declaration honest: a
code literal passed to a refusal, error or issue constructor must be
declared, and a declared code must appear in the package's source.

The ``hint`` of a refusal or error is its default next action: a refusal that
names none at its call site is printed with it (``hints.hint_for``, filled in
by ``cli.emit``). A refusal declared without one is one whose call sites always
name a hint of their own (the next step depends on the input). An issue is an
entry of a report, not an exit; its hint is optional.

This module also declares the codes ``rvault_contracts`` itself emits in every
tool (:data:`SHARED`: the CLI, the strict JSON reader, the bounded reader, the
PDF probe, the writer). Standard library only, so a ``codes`` module stays as
light as an ``api``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Final, Literal, NamedTuple

__all__ = [
    "ERROR",
    "HINTS",
    "ISSUE",
    "KINDS",
    "REFUSAL",
    "SHARED",
    "Code",
    "Codes",
    "Kind",
    "declare",
    "error",
    "issue",
    "refusal",
]

Kind = Literal["refusal", "error", "issue"]
REFUSAL: Final = "refusal"  # a ``cli-failure`` document, exit 2
ERROR: Final = "error"  # a coded exception a command reports as a refusal, a reader as a status
ISSUE: Final = "issue"  # an entry of a report or of a reader's status
KINDS: Final[tuple[Kind, ...]] = (REFUSAL, ERROR, ISSUE)


class Code(NamedTuple):
    """One declared code: its name, how it reaches the user, and its default next action.

    ``pattern`` is set on a code the source builds at run time (``f"database_{code}"``)
    and says how, e.g. ``database_<strict JSON code>``; its name appears in no literal.
    A named tuple, not a dataclass: a refusal printed before any command ran reads the
    tables, and dataclasses (with inspect) would be most of its start-up.
    """

    name: str
    kinds: tuple[Kind, ...]
    hint: str | None = None
    pattern: str | None = None


def _kinds(first: Kind, also: Kind | Iterable[Kind]) -> tuple[Kind, ...]:
    more: tuple[Kind, ...] = (also,) if isinstance(also, str) else tuple(also)  # type: ignore[assignment]
    return tuple(kind for kind in KINDS if kind == first or kind in more)


def refusal(
    name: str,
    hint: str | None = None,
    *,
    also: Kind | Iterable[Kind] = (),
    pattern: str | None = None,
) -> Code:
    """A code printed as a refusal (exit 2); ``also`` names the other ways it travels."""
    return Code(name, _kinds(REFUSAL, also), hint, pattern)


def error(
    name: str,
    hint: str | None = None,
    *,
    also: Kind | Iterable[Kind] = (),
    pattern: str | None = None,
) -> Code:
    """A code carried by an owner's coded exception (reported as a refusal or a status)."""
    return Code(name, _kinds(ERROR, also), hint, pattern)


def issue(
    name: str,
    hint: str | None = None,
    *,
    also: Kind | Iterable[Kind] = (),
    pattern: str | None = None,
) -> Code:
    """A code of a report's entry (an ``Issue``, a finding, a skip reason, a status)."""
    return Code(name, _kinds(ISSUE, also), hint, pattern)


class Codes(Mapping[str, Code]):
    """A package's declared codes by name (a read-only mapping, sorted)."""

    def __init__(self, declared: Iterable[Code]) -> None:
        by_name: dict[str, Code] = {}
        for code in declared:
            if code.name in by_name:
                raise ValueError(f"code {code.name!r} is declared twice")
            by_name[code.name] = code
        self._by_name = dict(sorted(by_name.items()))

    def __getitem__(self, name: str) -> Code:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def hints(self) -> dict[str, str]:
        """code -> default next action of the codes that declare one (``console_main``'s table)."""
        return {name: code.hint for name, code in self._by_name.items() if code.hint is not None}


def declare(*declared: Code | Iterable[Code]) -> Codes:
    """One package's declarations; a family built in a comprehension may be passed whole."""
    flat: list[Code] = []
    for item in declared:
        flat.extend([item] if isinstance(item, Code) else item)
    return Codes(flat)


SHARED: Final = declare(
    refusal(
        "argument_not_utf8",
        "rename the file or pass a path whose name is valid UTF-8",
        also=ISSUE,
    ),
    refusal(
        "backup_conflict",
        "a backup from an earlier write is in the way: inspect the file named by path "
        "(keep the newer one, remove the other), then run the command again",
    ),
    refusal(
        "bundle_journal_invalid",
        "the bundle journal named by path is damaged: inspect it and the files it lists, "
        "remove it once they are consistent, then run the command again",
    ),
    refusal(
        "bundle_recovery_conflict",
        "the files no longer match the bundle journal: inspect the files named by path, "
        "restore the intended generation, then remove the journal",
    ),
    refusal(
        "bundle_rollback_incomplete",
        "a write could not be rolled back: inspect the files named by path and the bundle "
        "journal beside them before running anything else",
    ),
    refusal(
        "bundle_rolled_back",
        "the write was rolled back and nothing changed: fix the cause in the message, then "
        "run the command again",
    ),
    refusal(
        "dependency_missing",
        "install the tool with its media extra (the README's install line)",
        also=ISSUE,
    ),
    error("duplicate_key", "remove the repeated key at path from the JSON input"),
    refusal("empty_input", "the file is empty: pass the saved file (check the copy or download)"),
    refusal(
        "input_changed",
        "another process changed the input while it was read: run the command again once "
        "nothing else writes it",
    ),
    refusal("input_missing", "check the path: no file exists there"),
    refusal("input_too_large", "the file exceeds the size limit: pass the file the tool expects"),
    refusal(
        "input_unreadable", "make the file readable by this user (permissions), then run again"
    ),
    # Exit 1, not a refusal: a bug to report, not an input to fix.
    refusal("internal_error", also=ISSUE),
    refusal(
        "interrupted",
        "nothing after the interruption was changed (landed_writes lists what was): run the "
        "command again",
        also=ISSUE,
    ),
    error("invalid_json", "fix the JSON syntax at the position in the message"),
    error("invalid_utf8", "re-save the file as UTF-8"),
    refusal(
        "io_error",
        "check that the path exists, is readable/writable and the disk has space, then run "
        "the command again",
    ),
    refusal(
        "lock_unavailable",
        "another rvault command holds the lock: wait for it to finish, then run the command again",
    ),
    error(
        "nesting_too_deep", "flatten the JSON input: it nests deeper than the strict reader allows"
    ),
    error("non_finite_number", "replace NaN/Infinity at path with a finite number or null"),
    refusal("not_regular_file", "pass a regular file (not a directory, device or FIFO) at path"),
    error(
        "number_not_round_trippable",
        "write the number at path so it round-trips exactly (an integer within 2**53, or a "
        "shorter decimal)",
    ),
    refusal("pdf_encrypted", "export the PDF again without a password, then run again"),
    refusal("pdf_not_a_pdf", "pass a PDF (the file does not start with %PDF-)"),
    refusal(
        "pdf_page_tree_incomplete",
        "the PDF's page tree is broken: export or write the PDF again",
    ),
    refusal("pdf_repair_required", "the PDF needs repair: export or write it again"),
    refusal("pdf_too_many_pages", "the PDF has more pages than the limit: pass the intended PDF"),
    refusal("pdf_unreadable", "export or write the PDF again (the reader could not parse it)"),
    refusal(
        "retries_exhausted",
        "other writers kept winning the race: run the command again once they are done",
    ),
    error("root_not_object", "the JSON input must be one object at the top level"),
    issue(
        "schema_violation",
        "fix the field named by path so the document matches its schema",
    ),
    refusal(
        "staged_candidate_conflict",
        "a staged file from an interrupted write is in the way: inspect the file named by "
        "path, remove it if stale, then run the command again",
    ),
    refusal(
        "symlink_refused",
        "pass the real file instead of a symbolic link (resolve it with realpath)",
    ),
    error(
        "unpaired_surrogate",
        "replace the lone \\uD800-\\uDFFF escape at path with a whole character",
    ),
    refusal("usage_error", "see the usage on stderr, or run the command with --help", also=ISSUE),
    error("utf8_bom", "re-save the file as UTF-8 without a byte-order mark"),
)
"""The codes ``rvault_contracts`` emits in every tool, each with its default hint."""

HINTS: Final[dict[str, str]] = SHARED.hints()
"""code -> default hint of :data:`SHARED` (``hints.DEFAULT_HINTS`` reads it when a refusal
first needs one)."""
