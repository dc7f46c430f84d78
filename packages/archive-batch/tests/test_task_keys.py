"""Scheduler keys: a result is shared only by the same task of the same vault and database."""

from __future__ import annotations

from rvault_archive_batch.execution import task_key
from rvault_archive_batch.planning import BatchPlan, Task

DIGEST = "ab" * 32


def _plan(root: str, database: str = "tracking-database.json", digest: str = DIGEST) -> BatchPlan:
    return BatchPlan(database_path=f"{root}/{database}", database_sha256=digest, vault_root=root)


TASK = Task(talk="talk-1", kind="transcript", source="youtube", args={}, memory_bytes=1)


def test_the_same_task_of_the_same_vault_and_database_has_one_key() -> None:
    assert task_key(_plan("/vaults/a"), TASK) == task_key(_plan("/vaults/a"), TASK)


def test_byte_identical_databases_in_two_vaults_get_different_keys() -> None:
    """Two copies of one vault sent to one scheduler must not take each other's results."""
    assert task_key(_plan("/vaults/a"), TASK) != task_key(_plan("/vaults/b"), TASK)


def test_a_changed_database_or_another_task_gets_another_key() -> None:
    base = task_key(_plan("/vaults/a"), TASK)
    assert task_key(_plan("/vaults/a", digest="cd" * 32), TASK) != base
    other = Task(talk="talk-2", kind="transcript", source="youtube", args={}, memory_bytes=1)
    assert task_key(_plan("/vaults/a"), other) != base
    assert base.startswith("rvault-batch-transcript:talk-1-")
