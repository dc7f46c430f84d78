"""A bundle torn by a kill: readers say recovery is pending, the next writer settles it.

Targeted kill points, not a sweep (``test_crash_writers.py`` sweeps). A
``vtt-cleanup --force`` replaces a transcript bundle (transcript, timing
sidecar, quality receipt: three renames after the journal's):

- SIGKILL on entry to the third rename leaves the transcript new and both
  receipts old, with the writer protocol's journal beside them. Every reader
  (the transcript api, ``verify``, ``rvault-db status`` of the talk it is
  registered to) reports ``recovery_pending`` (``bundle_recovery_pending``,
  naming ``rvault-transcript recover``), not ``transcript_hash_mismatch``;
- the next writer of the bundle settles the journal and then does its own
  job on its first attempt (it used to be refused as ``input_changed``);
- ``rvault-transcript recover`` settles it on its own;
- SIGTERM on entry to the ``openat`` that creates the first staged file
  stops the writer with ``interrupted`` and leaves no staged file behind,
  before any other writer runs (it used to leave it for the next one);
- the same kill between the renames of ``rvault-video extract`` (region PDF,
  context PDF, contact sheet, manifest): the video api, ``rvault-video
  validate`` and ``rvault-db status`` report the manifest ``recovery_pending``
  (``bundle_recovery_pending``), and the next run settles and extracts;
- ``rvault-analysis write`` killed between the renames of its analyses: its
  next run settles the directory's journal first and writes, first time.
"""

from __future__ import annotations

import json
import shlex
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from _harness import (
    INSTALL_OPS,
    call_number,
    command,
    hidden_leftovers,
    killed_run,
    run,
    trace_syscalls,
    tree_bytes,
)
from rvault_contracts.writer import pending_bundle
from rvault_testkit.tracking_db.root import root_database
from rvault_transcript import api
from rvault_video_extraction import api as video_api

NAME = "talk"
TALK = "2024-05-01-talk.md"


def _captions(word: str) -> str:
    lines = ["WEBVTT", ""]
    for i in range(70):  # 490 words: over the default quality floor
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        lines += [f"{at}.000 --> {at}.900", f"we discuss point {i} in {word} now", ""]
    return "\n".join(lines)


def _database(vault: Path, talks: list[dict[str, object]]) -> Path:
    """A current (schema 1) tracking database holding ``talks``."""
    document = root_database(talks)
    path = vault / "tracking-database.json"
    path.write_text(json.dumps(document))
    return path


class Bundle:
    """A registered transcript bundle of generation ``old``; ``argv`` writes ``new``."""

    def __init__(self, root: Path) -> None:
        self.transcripts = root / "vault" / "transcripts"
        self.transcripts.mkdir(parents=True)
        talk = {"schema_version": 5, "filename": TALK, "status": "pending"}
        self.db = _database(root / "vault", [talk])
        vtt = self.transcripts / f"{NAME}.en.vtt"
        vtt.write_text(_captions("detail"))
        self.transcript = self.transcripts / f"{NAME}.txt"
        first = run(command("rvault-transcript", "vtt-cleanup", vtt, self.transcript))
        assert first.returncode == 0, first.stdout
        printed = root / "fetch.json"
        printed.write_text(first.stdout)
        args = ("register-transcript", self.db, "--fetch-result", printed, "--talk", TALK)
        dry = run(command("rvault-db", *args))
        sha = dry.document["input_sha256"]
        assert run(command("rvault-db", *args, "--apply", "--expected-sha256", sha)).returncode == 0
        vtt.write_text(_captions("depth"))
        self.argv = command("rvault-transcript", "vtt-cleanup", vtt, self.transcript, "--force")
        self.pristine = root / "pristine"
        shutil.copytree(self.transcripts, self.pristine)
        self.old = tree_bytes(self.transcripts)

    def restore(self) -> None:
        shutil.rmtree(self.transcripts)
        shutil.copytree(self.pristine, self.transcripts)

    def state(self) -> dict[str, bytes]:
        return tree_bytes(self.transcripts)


@pytest.fixture(scope="module", autouse=True)
def _same_syscalls_every_run() -> Iterator[None]:
    """No ``.pyc`` writes: they add ``openat``/``rename`` calls to the first run only (a
    source edited meanwhile), which would move a kill point counted on the traced run."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONDONTWRITEBYTECODE", "1")
        yield


@pytest.fixture(scope="module")
def bundle(
    _same_syscalls_every_run: None, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Bundle, dict[str, bytes], int]:
    """The bundle, its new generation and the occurrence of the rename that tears it."""
    made = Bundle(tmp_path_factory.mktemp("torn"))
    reference, events = trace_syscalls(made.argv)
    assert reference.returncode == 0, reference.stdout
    new = made.state()
    renames = [when for syscall, when in events if syscall == "renameat"]
    assert [sc for sc, _ in events if sc in INSTALL_OPS] == ["renameat"] * 4  # journal + 3 names
    return made, new, renames[2]  # the second name's rename: the first name is already new


def _torn(bundle: Bundle, when: int) -> None:
    bundle.restore()
    killed = killed_run(bundle.argv, "renameat", when, signal.SIGKILL)
    assert killed.signalled == signal.SIGKILL
    assert pending_bundle(bundle.transcript) is not None  # the journal awaits recovery


def test_a_torn_bundle_reads_as_recovery_pending_and_the_next_writer_finishes(
    bundle: tuple[Bundle, dict[str, bytes], int],
) -> None:
    made, new, when = bundle
    _torn(made, when)
    torn = made.state()
    assert torn not in (made.old, new)  # the transcript is new, its receipts old
    evidence = api.read_evidence(made.transcript)
    assert evidence.state == "recovery_pending"
    assert evidence.quality.code == evidence.timing.code == api.RECOVERY_PENDING
    assert f"rvault-transcript recover {made.transcript}" in evidence.quality.message
    assert api.read_quality(made.transcript).code == api.RECOVERY_PENDING
    verify = run(command("rvault-transcript", "verify", made.transcript))
    assert verify.returncode == 2
    assert verify.document["error"]["code"] == "bundle_recovery_pending"
    assert "rvault-transcript recover" in verify.document["hint"]
    status = run(command("rvault-db", "status", made.db, "--format", "json"))
    (row,) = status.document["talks"]
    assert (row["transcript"]["state"], row["transcript"]["quality"]) == (
        "recovery_pending",
        "bundle_recovery_pending",
    )
    assert row["next_action"] == {  # the first thing to do, with the exact command
        "code": "recover_transcript",
        "text": "settle the interrupted transcript write",
        "command": shlex.join(["rvault-transcript", "recover", str(made.transcript)]),
    }
    assert made.state() == torn  # readers never settle
    again = run(made.argv)  # the next writer of the bundle: settles, then writes
    assert again.returncode == 0, again.stdout + again.stderr
    assert made.state() == new
    assert not hidden_leftovers(made.transcripts)
    assert api.read_evidence(made.transcript).state == "valid"
    status = run(command("rvault-db", "status", made.db, "--format", "json"))
    assert status.document["talks"][0]["transcript"]["state"] == "valid"


def test_recover_settles_a_torn_bundle_to_one_generation(
    bundle: tuple[Bundle, dict[str, bytes], int],
) -> None:
    made, _, when = bundle
    _torn(made, when)
    status = run(command("rvault-db", "status", made.db, "--format", "json"))
    named = shlex.split(status.document["talks"][0]["next_action"]["command"])
    assert named[:2] == ["rvault-transcript", "recover"]
    recovered = run(command(*named))  # the command status named, verbatim
    assert recovered.returncode == 0, recovered.stdout + recovered.stderr
    assert recovered.document["settled"]["action"] == "rolled_back"
    assert made.state() == made.old
    assert not hidden_leftovers(made.transcripts)
    assert run(command("rvault-transcript", "verify", made.transcript)).returncode == 0
    idle = run(command("rvault-transcript", "recover", made.transcript))
    assert idle.returncode == 0 and idle.document["settled"] is None


def test_a_writer_stopped_by_sigterm_removes_its_own_staged_file(
    bundle: tuple[Bundle, dict[str, bytes], int],
) -> None:
    made, _, _ = bundle
    made.restore()
    when = call_number(made.argv, "openat", ".staged")  # the first staged candidate
    made.restore()
    stopped = killed_run(made.argv, "openat", when, signal.SIGTERM)
    assert stopped.returncode == 130, stopped.stdout + stopped.stderr
    assert stopped.document["error"]["code"] == "interrupted"
    assert made.state() == made.old
    assert hidden_leftovers(made.transcripts) == []  # before any other writer runs


def test_the_next_video_extract_settles_a_torn_bundle_and_extracts(tmp_path: Path) -> None:
    """``rvault-video extract`` killed between its renames: the next run writes, first time."""
    import _vault

    vault = tmp_path / "vault"
    vault.mkdir()
    talk = {"schema_version": 5, "filename": TALK, "status": "pending",
            "youtube_id": _vault.VIDEO_ID,
            "video_url": f"https://www.youtube.com/watch?v={_vault.VIDEO_ID}"}  # fmt: skip
    db = _database(vault, [talk])  # the vault root extract resolves
    video = vault / "slides-rebuild" / _vault.VIDEO_ID / f"{_vault.VIDEO_ID}.mp4"
    _vault.make_video(video, ["One", "Two"])
    argv = _vault.video_argv(vault, video)
    assert run(argv).returncode == 0
    _vault.make_video(video, ["Alpha", "Beta", "Gamma"])  # a new recording: new outputs
    outdir = video.parent
    pristine = tmp_path / "pristine"
    shutil.copytree(vault, pristine)
    old = tree_bytes(vault)
    reference, events = trace_syscalls(argv)
    assert reference.returncode == 0, reference.stdout
    new = tree_bytes(vault)
    renames = [when for syscall, when in events if syscall == "renameat"]
    shutil.rmtree(vault)
    shutil.copytree(pristine, vault)
    killed = killed_run(argv, "renameat", renames[2], signal.SIGKILL)  # journal, 1st, [2nd]
    assert killed.signalled == signal.SIGKILL
    assert tree_bytes(vault) not in (old, new)
    manifest = outdir / f"{_vault.VIDEO_ID}.video-extraction.json"
    assert pending_bundle(manifest) is not None
    # every manifest reader says recovery pending, naming what settles it, not a mismatch
    report = video_api.read_manifest(manifest, vault_root=vault, expected_video_id=_vault.VIDEO_ID)
    assert (report.status, report.usable, report.trusted) == ("recovery_pending", False, False)
    assert report.codes == ["bundle_recovery_pending"]
    assert "rvault-video extract" in report.issues[0].message
    validate = run(command("rvault-video", "validate", manifest, "--vault-root", vault))
    assert validate.returncode == 2, validate.stdout
    assert validate.document["error"]["code"] == "bundle_recovery_pending"
    assert "extract again" in validate.document["hint"]
    status = run(command("rvault-db", "status", db, "--format", "json"))
    assert status.document["talks"][0]["video"]["status"] == "recovery_pending", status.stdout
    assert tree_bytes(vault) not in (old, new)  # readers never settle
    again = run(argv)
    assert again.returncode == 0, again.stdout + again.stderr  # was input_changed
    assert tree_bytes(vault) == new
    assert [p for p in hidden_leftovers(vault) if p.endswith(".bundle-journal")] == []


def test_the_next_analysis_write_settles_a_torn_replacement_and_writes(tmp_path: Path) -> None:
    """``rvault-analysis write`` killed between the renames of its analyses: the next run
    settles the directory's journal before reading the entries, then writes, first time."""
    import _vault

    vault = _vault.returns_vault(tmp_path / "vault", persisted=True)
    outdir = vault / "analyses"
    outdir.mkdir()
    for name in ("2024-01-01-a.md", "2024-02-01-b.md"):  # hand-written analyses it replaces
        (outdir / name).write_text(f"# an earlier analysis of {name}\n")
    argv = command("rvault-analysis", "write", vault.parent / "returns.json", outdir,
                   "--db", vault / _vault.DB)  # fmt: skip
    pristine = tmp_path / "pristine"
    shutil.copytree(outdir, pristine)
    old = tree_bytes(outdir)
    reference, events = trace_syscalls(argv)
    assert reference.returncode == 0, reference.stdout
    new = tree_bytes(outdir)
    renames = [when for syscall, when in events if syscall == "renameat"]
    assert len(renames) >= 3, events  # the journal's, then one per analysis
    shutil.rmtree(outdir)
    shutil.copytree(pristine, outdir)
    killed = killed_run(argv, "renameat", renames[2], signal.SIGKILL)  # journal, 1st, [2nd]
    assert killed.signalled == signal.SIGKILL
    assert pending_bundle(outdir / ".rvault-analysis") is not None
    assert tree_bytes(outdir) not in (old, new)
    again = run(argv)
    assert again.returncode == 0, again.stdout + again.stderr  # was input_changed
    assert tree_bytes(outdir) == new
    assert [p for p in hidden_leftovers(outdir) if p.endswith(".bundle-journal")] == []
