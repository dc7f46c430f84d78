"""The next action for every refusal code, looked up by code when a refusal names none.

The README promises a ``hint`` on every exit 2. A call site that knows a
better next step passes ``hint=`` itself; everything else gets the default of
its code from here: :data:`DEFAULT_HINTS` for the codes ``rvault_contracts``
emits in every tool (CLI, strict JSON, writer), and each owner's ``HINTS``
table, registered by its console script (:func:`register`). Looking the hint
up by code at the one place a document reaches stdout (``cli.emit``) covers a
code however it travelled there: raised directly, or raised as an owner's
coded error and re-raised as a refusal. ``tools/tests/test_refusal_hints.py``
fails on a refusal code that no table and no call site gives a hint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_HINTS: dict[str, str] = {
    "argument_not_utf8": "rename the file or pass a path whose name is valid UTF-8",
    "backup_conflict": "a backup from an earlier write is in the way: inspect the file named "
    "by path (keep the newer one, remove the other), then run the command again",
    "bundle_journal_invalid": "the bundle journal named by path is damaged: inspect it and the "
    "files it lists, remove it once they are consistent, then run the command again",
    "bundle_recovery_conflict": "the files no longer match the bundle journal: inspect the "
    "files named by path, restore the intended generation, then remove the journal",
    "bundle_rollback_incomplete": "a write could not be rolled back: inspect the files named by "
    "path and the bundle journal beside them before running anything else",
    "bundle_rolled_back": "the write was rolled back and nothing changed: fix the cause in the "
    "message, then run the command again",
    "dependency_missing": "install the tool with its media extra (the README's install line)",
    "empty_input": "the file is empty: pass the saved file (check the copy or download)",
    "duplicate_key": "remove the repeated key at path from the JSON input",
    "input_changed": "another process changed the input while it was read: run the command "
    "again once nothing else writes it",
    "input_missing": "check the path: no file exists there",
    "input_too_large": "the file exceeds the size limit: pass the file the tool expects",
    "input_unreadable": "make the file readable by this user (permissions), then run again",
    "interrupted": "nothing after the interruption was changed (landed_writes lists what was): "
    "run the command again",
    "invalid_json": "fix the JSON syntax at the position in the message",
    "invalid_utf8": "re-save the file as UTF-8",
    "io_error": "check that the path exists, is readable/writable and the disk has space, then "
    "run the command again",
    "lock_unavailable": "another rvault command holds the lock: wait for it to finish, then "
    "run the command again",
    "nesting_too_deep": "flatten the JSON input: it nests deeper than the strict reader allows",
    "non_finite_number": "replace NaN/Infinity at path with a finite number or null",
    "not_regular_file": "pass a regular file (not a directory, device or FIFO) at path",
    "number_not_round_trippable": "write the number at path so it round-trips exactly (an "
    "integer within 2**53, or a shorter decimal)",
    "pdf_encrypted": "export the PDF again without a password, then run again",
    "pdf_not_a_pdf": "pass a PDF (the file does not start with %PDF-)",
    "pdf_page_tree_incomplete": "the PDF's page tree is broken: export or write the PDF again",
    "pdf_repair_required": "the PDF needs repair: export or write it again",
    "pdf_too_many_pages": "the PDF has more pages than the limit: pass the intended PDF",
    "pdf_unreadable": "export or write the PDF again (the reader could not parse it)",
    "retries_exhausted": "other writers kept winning the race: run the command again once "
    "they are done",
    "root_not_object": "the JSON input must be one object at the top level",
    "schema_violation": "fix the field named by path so the document matches its schema",
    "staged_candidate_conflict": "a staged file from an interrupted write is in the way: "
    "inspect the file named by path, remove it if stale, then run the command again",
    "symlink_refused": "pass the real file instead of a symbolic link (resolve it with realpath)",
    "unpaired_surrogate": "replace the lone \\uD800-\\uDFFF escape at path with a whole character",
    "usage_error": "see the usage on stderr, or run the command with --help",
    "utf8_bom": "re-save the file as UTF-8 without a byte-order mark",
}

_registered: dict[str, str] = {}


def register(hints: Mapping[str, str]) -> None:
    """Make ``hints`` the running owner's code -> hint table (its console script calls this
    before parsing; a later tool run in the same process replaces it)."""
    _registered.clear()
    _registered.update(hints)


def hint_for(code: str) -> str | None:
    """The owner's hint for ``code``, else the shared default, else None."""
    return _registered.get(code) or DEFAULT_HINTS.get(code)


def with_hint(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with the default ``hint`` of its code when it is a failure without one."""
    error = document.get("error")
    if document.get("ok") is not False or "hint" in document or not isinstance(error, dict):
        return document
    hint = hint_for(str(error.get("code", "")))
    return document if hint is None else {**document, "hint": hint}
