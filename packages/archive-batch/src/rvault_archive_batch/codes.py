"""The refusal, error and issue codes of ``rvault-archive``, each with its next action.

How a declaration is used (default hints, the README table, the guard tests):
``rvault_contracts.codes``. A code shared by every tool is declared there; one
repeated here gives it this tool's own hint.
"""

from __future__ import annotations

from rvault_contracts.codes import declare, error, issue, refusal

_RERUN = "run the batch again: the next plan picks the talk up where it stopped"

CODES = declare(
    # Refusals: a ``cli-failure`` document, exit 2.
    refusal("database_changed"),
    refusal("database_changed_while_planning"),
    refusal("scheduler_unreachable"),
    refusal("task_cancelled", _RERUN),
    refusal("task_error", "read the task's message, fix its cause, then " + _RERUN),
    refusal(
        "task_retries_exhausted",
        "the task failed on every retry: check the worker's resources, then " + _RERUN,
    ),
    refusal("worker_lost", "a worker died (memory or a lost node): " + _RERUN),
    # Errors: a coded exception that a command reports as a refusal, a reader as a status.
    error(
        "extraction_not_current",
        "re-run the talk's deck extraction (rvault-pptx extract), then " + _RERUN,
    ),
    error(
        "invalid_fetch_result",
        "fetch the talk's transcript again (rvault-transcript), then " + _RERUN,
    ),
    error(
        "manifest_unusable",
        "re-run the talk's video extraction (rvault-video extract), then " + _RERUN,
    ),
    # Issues: an entry of a report or of a reader's status.
    issue("owner_failed"),
    issue("owner_killed"),
)

HINTS: dict[str, str] = CODES.hints()
