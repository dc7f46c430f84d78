"""What the "streamed == whole" tests share (not a test module).

Each command that streams its talks (status, preflight, queue normalize,
queue inspect, and the read) is proven by running it both ways on the same
vaults: as shipped, then the whole way, with its streamed entry point
replaced, and comparing exit status and stdout byte for byte. Here are the
vaults those tests build (talks that exercise every kind of row and finding,
refused and valid edits as data), a :class:`Command` that runs one command
both ways in-process, and the spy that records when a command read its
database whole. Imported from the tests directory, which each test module
puts on ``sys.path``, like ``_queue_builders``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _queue_builders as qb
import pytest
from rvault_contracts.canonical import sha256_bytes
from rvault_testkit.tracking_db.layouts import LAYOUTS
from rvault_testkit.tracking_db.samples import example_database, example_talk, realistic_database
from rvault_tracking_db import streamed_read
from rvault_tracking_db.cli import main
from rvault_tracking_db.preflight.findings import Findings
from rvault_tracking_db.preflight.talk_checks import LightView, check_talks, talks_of

Outcome = tuple[int, str]
Applied = tuple[Outcome, bytes]
"""A command's exit status and stdout."""
Edit = Callable[[dict[str, Any]], object]
"""A change made to a database document before it is written."""

YT = "dQw4w9WgXcQ"
OTHER = "AbCdEfGhI_1"
DB = "{db}"
"""Stands for the database (or vault) path in a :class:`Command`'s ``argv``."""


# --- talks ---------------------------------------------------------------------------------


def local_transcript_caps() -> list[dict[str, Any]]:
    """The derived capability of a talk whose transcript is ``transcripts/t.txt`` in the vault."""
    return [{"capability": "local_transcript", "path": "transcripts/t.txt", "root": "vault"}]


def bad_ledger(talk: dict[str, Any]) -> dict[str, Any]:
    """``talk`` (a processed one) with a ledger that breaks its contract: a read warning,
    and a requeue in normalize."""
    talk["pattern_observations"]["pattern_outcomes"][0]["outcome"] = "bogus"
    return talk


def mismatched_talk() -> dict[str, Any]:
    """The spec example on another recording, its captured provider title another talk's."""
    talk = example_talk("2024-07-01-identity.md", youtube_id=OTHER)
    talk["source_identity"] = {**talk["source_identity"], "title": "Cooking Pasta"}
    return talk


def identity_and_deck_talks(vault: Path) -> list[dict[str, Any]]:
    """Six talks the identity checks speak of, the transcript and deck they name written into
    ``vault``: a recording, a duplicate of it titled in more than ASCII, one whose relation
    names the first, one whose relation names no talk, a stored deck binding that is
    contradicted and a deck with no binding yet."""
    qb.write_transcript(vault, "transcripts/t.txt")
    qb.write_pptx(vault / "Deck.pptx")
    return [
        qb.remote_talk("2024-02-01-yt.md", YT, source_capabilities=[]),
        qb.remote_talk("2024-02-02-dup.md", YT, title="Über Café-Sprache 🎤"),
        qb.remote_talk(
            "2024-02-03-rel.md", YT,
            source_relation={"type": "duplicate", "target_filename": "2024-02-01-yt.md"},
        ),
        qb.pending_talk(
            "2024-02-04-nowhere.md",
            source_relation={"type": "duplicate", "target_filename": "nope.md"},
        ),
        qb.pending_talk(
            "2024-03-01-deck.md", transcript_path="transcripts/t.txt", pptx_path="Deck.pptx",
            deck_binding=qb.contradicted_binding(),
        ),
        qb.pending_talk("2024-03-02-deck.md", pptx_path="Deck.pptx"),
    ]  # fmt: skip


def queue_talks(vault: Path) -> list[dict[str, Any]]:
    """Talks the queue normalizes, reviews, requeues and skips, and ones it leaves alone (one
    analysis's evidence on disk, stale once a test replaces it; a live claim)."""
    qb.write_transcript(vault, "transcripts/t.txt")
    caps = local_transcript_caps()
    stale = qb.bind_evidence(vault, qb.processed_talk("2023-03-01-stale.md", 5))
    return [
        qb.bind_evidence(vault, qb.processed_talk("2023-01-01-done.md", 7)),
        bad_ledger(qb.processed_talk("2023-02-01-ledger.md", 6)),
        stale,
        example_database(claimed=True)["talks"][0],
        qb.pending_talk(
            "local.md", transcript_path="transcripts/t.txt", transcript_source="manual"
        ),
        qb.pending_talk("legacy-empty.md", status="skipped_no_video"),
        qb.remote_talk("legacy-remote.md", YT, status="skipped_no_transcript"),
        qb.pending_talk("escape.md", transcript_path="../outside.txt", title="Über Café 🎤"),
        qb.pending_talk("ready.md", transcript_path="transcripts/t.txt", source_capabilities=caps),
        qb.pending_talk("skipped.md", status="skipped_no_sources", source_capabilities=[]),
    ]  # fmt: skip


# --- vaults --------------------------------------------------------------------------------


def write_layout(
    vault: Path, database: dict[str, Any], layout: str, edit: Edit | None = None
) -> Path:
    """``database`` (changed by ``edit`` first, if given) written into ``vault`` as the
    ``layout`` writer spells it; its path."""
    if edit is not None:
        edit(database)
    vault.mkdir(parents=True, exist_ok=True)
    db = vault / qb.DB_NAME
    db.write_bytes(LAYOUTS[layout](database))
    return db


def realistic_vault_database() -> dict[str, Any]:
    """Forty realistic talks with six outcomes each, one titled in more than ASCII (so UTF-8
    and ASCII-escaping writers differ)."""
    database = realistic_database(40, outcomes=6)
    database["talks"][7]["title"] = "Sprache, Café und 🎤"
    return database


def second_talk_respelled(data: bytes, member: bytes) -> bytes:
    """``member`` put before the second talk's ``filename`` (artifact layout): a duplicate
    key, or bytes that are not the talk's own encoding, which the stream cannot prove."""
    line = b'      "filename": '
    at = data.index(line, data.index(line) + 1)
    return data[:at] + b"      " + member + b",\n" + data[at:]


NOT_ITS_OWN_ENCODING = b'"zz": 1E2'
"""A member whose number the encoder spells ``100.0``: valid, but not the talk's encoding."""
UNPROVEN_IDS = ["duplicate key: the strict decoder's refusal", "not its own encoding: a report"]


def unprovable(duplicate_member: bytes) -> pytest.MarkDecorator:
    """Parametrizes ``member`` (for :func:`second_talk_respelled`) and ``outcome``, the exit
    status: ``duplicate_member`` repeats a key of the talk (the strict decoder refuses, 2),
    :data:`NOT_ITS_OWN_ENCODING` reads (0). The stream proves neither: both go the whole way."""
    return pytest.mark.parametrize(
        ("member", "outcome"),
        [(duplicate_member, 2), (NOT_ITS_OWN_ENCODING, 0)],
        ids=UNPROVEN_IDS,
    )


def legacy_root(database: dict[str, Any]) -> None:
    """A root written before ``schema_version`` (status and inspect read it; normalize
    refuses it: migrate first)."""
    database.pop("schema_version")


def _duplicate_filename(database: dict[str, Any]) -> None:
    database["talks"][5]["filename"] = database["talks"][0]["filename"]


VALID: dict[str, Edit] = {
    "no talks": lambda d: d.update(talks=[]),
    "legacy root": legacy_root,
}
"""Edits every reading command accepts; each test module adds its own."""

REFUSED: dict[str, Edit] = {
    "future talk version": lambda d: d["talks"][4].update(schema_version=6),
    "duplicate filename": _duplicate_filename,
    "talk not an object": lambda d: d["talks"].insert(2, 7),
    "future config": lambda d: d["config"].update(schema_version=3),
    "records not an array": lambda d: d.update(resources={"a": 1}),
    "talks not an array": lambda d: d.update(talks={"a": 1}),
    "future root": lambda d: d.update(schema_version=2),
    "bad claim in a late talk": lambda d: d["talks"][-1].update(_queue_claim={"run_id": 5}),
}
"""Edits the owner's read refuses (on a database of at least six talks), by name."""


def refused(*names: str) -> dict[str, Edit]:
    """The :data:`REFUSED` edits a command refuses (one that reads any version refuses fewer)."""
    return {name: REFUSED[name] for name in names}


# --- running a command both ways -------------------------------------------------------------


def _data(data: bytes, *_args: Any) -> bytes:
    return data


def spy_calls(
    monkeypatch: pytest.MonkeyPatch,
    owner: object,
    name: str,
    recorded: Callable[..., Any] = _data,
) -> list[Any]:
    """Each later call of ``owner.<name>``, as ``recorded(*args)`` (by default its first
    argument: the bytes a whole read decoded), while the test's monkeypatch is on."""
    calls: list[Any] = []
    real = getattr(owner, name)

    def recording(*args: Any) -> Any:
        calls.append(recorded(*args))
        return real(*args)

    monkeypatch.setattr(owner, name, recording)
    return calls


@dataclass(frozen=True)
class Command:
    """An ``rvault-db`` command and how a test makes it go the whole way.

    ``argv`` names the database (or vault) as :data:`DB`. The whole way sets
    ``owner.<attribute>`` to ``whole`` (the stream declining, or the command's
    answer before the stream). Its whole read is ``reads.<read>``, which
    :meth:`spy_whole_reads` records as ``recorded(*args)``.
    """

    argv: tuple[str, ...]
    owner: object
    attribute: str
    whole: Callable[..., Any]
    reads: object
    read: str = "decode_and_assess"
    recorded: Callable[..., Any] = _data

    def spy_whole_reads(self, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
        """The whole reads the command makes from now on (see :func:`spy_calls`)."""
        return spy_calls(monkeypatch, self.reads, self.read, self.recorded)

    def both_ways(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> BothWays:
        """This command run in-process with one test's capsys and monkeypatch."""
        return BothWays(self, capsys, monkeypatch)


@dataclass(frozen=True)
class BothWays:
    """A :class:`Command` bound to one test: each run's (exit status, stdout)."""

    command: Command
    capsys: pytest.CaptureFixture[str]
    monkeypatch: pytest.MonkeyPatch

    def run(self, target: Path, *extra: str) -> Outcome:
        """The command on ``target`` as shipped (streamed where it can)."""
        self.capsys.readouterr()
        argv = [str(target) if word == DB else word for word in self.command.argv]
        code = main([*argv, *extra])
        return code, self.capsys.readouterr().out

    @contextmanager
    def whole_way(self) -> Iterator[None]:
        """A context in which the command reads whole, as it did before the stream."""
        with self.monkeypatch.context() as patch:
            patch.setattr(self.command.owner, self.command.attribute, self.command.whole)
            yield

    def both(self, target: Path, *extra: str) -> tuple[Outcome, Outcome]:
        """The command streamed, then the whole way."""
        streamed = self.run(target, *extra)
        with self.whole_way():
            whole = self.run(target, *extra)
        return streamed, whole

    def apply_both(self, target: Path, *extra: str) -> tuple[Applied, Applied]:
        """The apply's (exit, stdout) and installed bytes streamed, then whole, from the same
        bytes (the file is put back between the two)."""
        original = target.read_bytes()
        digest = ("--apply", "--expected-sha256", sha256_bytes(original))
        streamed = self.run(target, *extra, *digest), target.read_bytes()
        if streamed[1] != original:
            target.write_bytes(original)
        with self.whole_way():
            whole = self.run(target, *extra, *digest), target.read_bytes()
        return streamed, whole

    def spy_whole_reads(self) -> list[Any]:
        """The whole reads the command makes from now on."""
        return self.command.spy_whole_reads(self.monkeypatch)

    def both_spied(self, target: Path, *extra: str) -> tuple[Outcome, Outcome, list[Any]]:
        """:meth:`both`, and the whole reads the streamed run made."""
        whole_reads = self.spy_whole_reads()
        streamed = self.run(target, *extra)
        streamed_reads = list(whole_reads)
        with self.whole_way():
            whole = self.run(target, *extra)
        return streamed, whole, streamed_reads


def _proves_nothing(*_args: Any, **_kwargs: Any) -> None:
    return None


def queue_command(verb: str) -> Command:
    """``rvault-db queue <db> <verb>``: the whole way, ``streamed_read``'s stream proves
    nothing, so the command decodes the tree and runs on it as before the stream."""
    return Command(
        argv=("queue", DB, verb),
        owner=streamed_read,
        attribute="streamed_assessment",
        whole=_proves_nothing,
        reads=streamed_read,
    )


def views_of(database: dict[str, Any], vault: Path, *, full: bool) -> tuple[LightView, Findings]:
    """``database``'s talks through a :class:`LightView` one at a time (each a copy: only what
    the view keeps of a talk may survive it), and ``check_talks`` over them at once."""
    whole = Findings()
    check_talks(database, talks_of(database), vault, whole, full=full)
    view = LightView({k: v for k, v in database.items() if k != "talks"}, vault, full=full)
    for ref, talk in talks_of(database):
        view.add(ref, copy.deepcopy(talk))
    return view, whole
