"""The one apply protocol of every command that writes the database.

``mutate``, ``migrate``, ``init``, ``sources`` (and its shortcuts),
``add-talk``, ``queue normalize|claim|recover`` and ``scan-shownotes`` all
follow the same steps, implemented once here:

- **Dry run by default.** The database is read *without* the writer lock (a
  read-only vault can still be inspected, and nothing is created beside it),
  the command computes its candidate and prints the exact changes, the input
  SHA-256 and the SHA-256 of the bytes an apply would install.
- **``--apply --expected-sha256 HEX``** takes the persistent writer lock,
  re-reads, requires that the bytes are the reviewed ones (``missing`` for the
  one command that creates a database), recomputes on exactly those bytes and
  installs through ``rvault_contracts.writer`` bound to that snapshot.
- **One set of codes** for the same mistake everywhere:
  ``expected_sha256_required``, ``expected_sha256_without_apply``,
  ``invalid_expected_sha256``, ``expected_sha256_mismatch``,
  ``database_requires_migration``; the writer's own codes pass through with
  the file they concern.

A command whose retry must succeed after a lost response (``queue claim``
replays the stored claims of the same run, batch and time) checks the digest
only when it would really write: see :meth:`Session.require_expected`.

The owner write another owner installs through (``persist_write``, behind
``rvault-returns persist``) uses the same session with a caller-built
candidate: :meth:`ApplyRequest.owner_write` applies without requiring a
digest, because that caller has no dry run to quote; its install is still
bound to the snapshot read under the lock.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import is_sha256_hex, sha256_bytes
from rvault_contracts.cli import Refusal, apply_command
from rvault_contracts.issues import Issue
from rvault_contracts.writer import (
    FaultHook,
    WriteReport,
    WriterError,
    WriterLock,
    install,
    writer_lock,
)

from rvault_tracking_db.reader import ReadResult, read_database

MISSING = "missing"
MIGRATE_HINT = "run `rvault-db migrate DB`, review it, then apply it with its input_sha256"
DRY_RUN_HINT = (
    "run the same command without --apply, review the changes, then quote its input_sha256"
)


def add_arguments(parser: argparse.ArgumentParser, *, creating: bool = False) -> None:
    """``--apply`` and ``--expected-sha256`` with the same help in every command."""
    parser.add_argument(
        "--apply", action="store_true", help="install the result (default: dry run)"
    )
    digest = (
        "the literal 'missing' (the database must not exist yet)"
        if creating
        else "the input_sha256 the dry run printed"
    )
    parser.add_argument(
        "--expected-sha256",
        dest="expected_sha256",
        default=None,
        metavar="HEX" if not creating else "missing",
        help=f"with --apply: {digest}",
    )


@dataclass(frozen=True)
class ApplyRequest:
    """What the command line asked for; ``creating`` marks initialization.

    ``digest_optional`` marks an owner write applied for another owner's
    command, which binds the digest only when its caller passes one.
    """

    apply: bool = False
    expected: str | None = None
    creating: bool = False
    digest_optional: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, creating: bool = False) -> ApplyRequest:
        return cls(bool(args.apply), args.expected_sha256, creating)

    @classmethod
    def owner_write(cls, expected: str | None = None) -> ApplyRequest:
        """An apply whose reviewed digest is optional (the snapshot read still binds it)."""
        return cls(True, expected, digest_optional=True)

    @property
    def mode(self) -> str:
        return "apply" if self.apply else "dry-run"

    def check(self) -> None:
        """Refuse an inconsistent ``--apply`` / ``--expected-sha256`` pair before any read."""
        if self.apply and self.expected is None and not self.digest_optional:
            raise Refusal(
                "expected_sha256_required",
                "--apply requires --expected-sha256 with the dry run's input_sha256",
                "--expected-sha256",
                hint=DRY_RUN_HINT if not self.creating else "add --expected-sha256 missing",
            )
        if not self.apply and self.expected is not None:
            raise Refusal(
                "expected_sha256_without_apply",
                "--expected-sha256 is only meaningful with --apply",
                "--apply",
                hint="add --apply to write, or drop --expected-sha256 for a dry run",
            )
        if self.expected is None:
            return
        if self.expected != MISSING and not is_sha256_hex(self.expected):
            raise Refusal(
                "invalid_expected_sha256",
                "--expected-sha256 is 64 lowercase hex characters or the literal 'missing'",
                "--expected-sha256",
                hint="copy input_sha256 from the dry-run report",
            )
        if self.creating and self.expected != MISSING:
            raise Refusal(
                "expected_sha256_mismatch",
                "creating a database applies only with --expected-sha256 missing",
                "--expected-sha256",
                hint="pass --expected-sha256 missing",
            )
        if not self.creating and self.expected == MISSING:
            raise Refusal(
                "expected_sha256_mismatch",
                "only initialization applies to a missing database",
                "--expected-sha256",
                hint=DRY_RUN_HINT,
            )


OUTPUT_DIGEST = "expected_sha256_is_output"


@dataclass
class Session:
    """One read of the database for one command, locked only when applying."""

    request: ApplyRequest
    result: ReadResult
    lock: WriterLock | None
    bound: bool = False
    # A digest mismatch found at the read, raised once it is known whether the
    # digest given is the dry run's output_sha256 (see :meth:`install`).
    mismatch: Refusal | None = None

    @property
    def vault_root(self) -> Path:
        return Path(self.result.database_path).parent

    def require_expected(self) -> None:
        """Under ``--apply``, the bytes read must be the reviewed ones."""
        if not self.request.apply or self.bound:
            return
        if self.request.expected is None:
            assert self.request.digest_optional  # ApplyRequest.check refused it otherwise
            return
        if self.mismatch is not None:
            raise self.mismatch
        actual = MISSING if self.result.sha256 is None else self.result.sha256
        if self.request.expected != actual:
            raise Refusal(
                "expected_sha256_mismatch",
                f"the database is {actual}, not the reviewed {self.request.expected}",
                "--expected-sha256",
                input_sha256=self.result.sha256,
                hint="the database changed since the dry run: " + DRY_RUN_HINT,
            )
        self.bound = True

    def defer_mismatch(self) -> None:
        """Bind the digest now, but hold a mismatch until :meth:`install` can tell its cause."""
        try:
            self.require_expected()
        except Refusal as refusal:
            if refusal.code != "expected_sha256_mismatch" or self.result.sha256 is None:
                raise
            self.mismatch = refusal

    def _given_output_digest(self, new_bytes: bytes) -> Refusal | None:
        """``expected_sha256_is_output`` when the digest given is what this write would produce.

        The dry run prints two digests; passing ``output_sha256`` (the
        database after the write) instead of ``input_sha256`` is a copy
        mistake, not a database that changed since the dry run.
        """
        given = self.request.expected
        if self.bound or given in (None, MISSING, self.result.sha256):
            return None
        if given != sha256_bytes(new_bytes):
            return None
        return Refusal(
            OUTPUT_DIGEST,
            "--expected-sha256 is the dry run's output_sha256 (the database after this write); "
            "the database has not changed since the dry run",
            "--expected-sha256",
            input_sha256=self.result.sha256,
            hint=f"pass the dry run's input_sha256: --expected-sha256 {self.result.sha256}",
        )

    def require_current_root(self, command: str) -> None:
        version = self.result.assessment.root_version if self.result.assessment else None
        if self.result.exists and version != 1:
            raise Refusal(
                "database_requires_migration",
                f"{command} needs database schema 1 (this database is schema {version})",
                '$["schema_version"]',
                hint=MIGRATE_HINT,
            )

    def install(
        self,
        new_bytes: bytes,
        *,
        backup_dir: Path | None = None,
        fault: FaultHook | None = None,
    ) -> WriteReport | None:
        """Install ``new_bytes`` bound to the snapshot read (``None`` for a dry run).

        ``fault`` is the writer's test hook, passed through. A writer refusal
        is raised as a :class:`Refusal` with its code and the file it concerns.
        """
        if not self.request.apply:
            return None
        output_digest = self._given_output_digest(new_bytes)
        if output_digest is not None:
            raise output_digest
        self.require_expected()
        assert self.lock is not None
        try:
            return install(
                self.result.path,
                new_bytes,
                expected=self.result.snapshot,
                lock=self.lock,
                backup_dir=backup_dir,
                fault=fault,
            )
        except WriterError as exc:
            raise writer_refusal(exc) from None

    def outcome(
        self, new_bytes: bytes | None, write: WriteReport | None, *, dry_run_state: str | None
    ) -> dict[str, Any]:
        """The report members every writing command shares.

        ``new_bytes`` is what an apply would install (``None``: nothing to
        write). ``dry_run_state`` is the contract's spelling of a dry run's
        durability (``null`` in the mutation/migration reports, ``dry_run``
        in the queue and scan reports). ``next_command`` is the exact command
        that applies a dry run which would write (the same words with
        ``--apply --expected-sha256 INPUT_SHA256``); ``None`` once applied, when
        nothing would change, or outside a command line.
        """
        if write is not None:
            return {
                "mode": self.request.mode,
                "apply_requested": True,
                "input_sha256": self.result.sha256,
                "output_sha256": write.output_sha256,
                "database_written": write.database_written,
                "durability_state": write.durability_state,
                "warnings": list(write.warnings),
                "write": write.to_dict(),
                "next_command": None,
            }
        output = self.result.sha256 if new_bytes is None else sha256_bytes(new_bytes)
        writes = new_bytes is not None and new_bytes != self.result.snapshot.data
        return {
            "mode": self.request.mode,
            "apply_requested": self.request.apply,
            "input_sha256": self.result.sha256,
            "output_sha256": output,
            "database_written": False,
            "durability_state": dry_run_state if not self.request.apply else "unchanged",
            "warnings": [],
            "write": None,
            "next_command": apply_command(self.result.sha256)
            if writes and not self.request.apply
            else None,
        }


@contextmanager
def session(
    path: str | os.PathLike[str],
    request: ApplyRequest,
    *,
    bind_late: bool = False,
    tolerate: Callable[[Issue], bool] | None = None,
    read: Callable[[str | os.PathLike[str]], ReadResult] | None = None,
) -> Iterator[Session]:
    """Check the arguments, read (locked only to apply) and bind the digest.

    ``bind_late`` leaves the digest check to :meth:`Session.require_expected`
    (called by :meth:`Session.install` at the latest), for a command that may
    answer an idempotent replay without writing. Writer refusals keep their
    codes and name the file. ``read`` replaces :func:`read_database` for a
    command that plans while it reads (``queue normalize`` streams the talks);
    it must refuse exactly as :func:`read_database` does.
    """
    request.check()
    try:
        if request.apply:
            with writer_lock(path) as lock:
                current = Session(request, _read(path, request, tolerate, read), lock)
                if not bind_late:
                    current.defer_mismatch()
                try:
                    yield current
                except Refusal as refusal:
                    # the database changed since the dry run: that comes first
                    if current.mismatch is not None and refusal.code != OUTPUT_DIGEST:
                        raise current.mismatch from None
                    raise
                if current.mismatch is not None:
                    raise current.mismatch
        else:
            yield Session(request, _read(path, request, tolerate, read), None)
    except WriterError as exc:
        raise writer_refusal(exc) from None


def writer_refusal(exc: WriterError) -> Refusal:
    """A writer refusal as a command refusal: the same code, the file in its context."""
    context: dict[str, Any] = dict(exc.context)
    context.setdefault("file", exc.path)
    return Refusal(exc.code, exc.message, "$", **context)


def _read(
    path: str | os.PathLike[str],
    request: ApplyRequest,
    tolerate: Callable[[Issue], bool] | None,
    read: Callable[[str | os.PathLike[str]], ReadResult] | None,
) -> ReadResult:
    if read is not None:
        return read(path)
    return read_database(path, allow_missing=request.creating, tolerate=tolerate)
