"""The next action for each refusal of ``rvault-archive`` that its call site names none for.

``console_main`` registers this table; ``rvault_contracts.cli.emit`` prints a
refusal's hint from it (see ``rvault_contracts.hints``).
"""

from __future__ import annotations

_RERUN = "run the batch again: the next plan picks the talk up where it stopped"

HINTS: dict[str, str] = {
    "extraction_not_current": "re-run the talk's deck extraction (rvault-pptx extract), then "
    + _RERUN,
    "invalid_fetch_result": "fetch the talk's transcript again (rvault-transcript), then " + _RERUN,
    "manifest_unusable": "re-run the talk's video extraction (rvault-video extract), then "
    + _RERUN,
    "task_cancelled": _RERUN,
    "task_error": "read the task's message, fix its cause, then " + _RERUN,
    "task_retries_exhausted": "the task failed on every retry: check the worker's resources, "
    "then " + _RERUN,
    "worker_lost": "a worker died (memory or a lost node): " + _RERUN,
}
