"""Crash consistency: every writer killed on entry to its write-path syscalls.

For each writer a real vault is built with the owner tools, the writer is
run once under strace to list its write-path syscalls in order, and then it
is re-run from the same pristine vault with SIGKILL or SIGTERM delivered on
entry to a chosen call (``strace -e inject=SC:signal=SIG:when=N``). After
every run:

- the vault is the complete old generation or the complete new one (for a
  SIGKILL'd bundle, after the next writer of the bundle settled it: for the
  transcript and video writers that is their own next run, which must write
  the new generation on its first attempt);
- a SIGTERM run's report says what is on disk: exit 0 only with the new
  generation, ``interrupted`` only with the old one, never a torn bundle;
- the migration backup holds the complete original bytes whenever the
  database is the new generation;
- the lock is recoverable: re-running the command succeeds (or, where the
  new generation is already there, a follow-up write succeeds), and after
  it no staged, rollback or journal file of the writer protocol remains.

``make test`` (``RVAULT_RELIABILITY=quick``, the default) kills at
``KILLS_PER_WRITER["quick"]`` points (every install point after the lock, then
seeded others), each under one signal, SIGKILL and SIGTERM alternating;
``make reliability`` (``RVAULT_RELIABILITY=sample``) at
``KILLS_PER_WRITER["sample"]`` points under both signals; ``RVAULT_SOAK=1``
kills at every write-path call under both. Set
``RVAULT_RELIABILITY_REPORT=DIR`` to get one JSON file of figures per writer.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import _vault
import pytest
from _harness import (
    DEPTH,
    SOAK,
    Run,
    command,
    hidden_leftovers,
    kill_points,
    killed_run,
    run,
    trace_syscalls,
    tree_bytes,
)
from rvault_contracts.writer import recover_bundle

KILLS_PER_WRITER = {"quick": 4, "sample": 6}
#: ``RVAULT_SOAK_SCOPE=locked`` limits the soak to calls after the writer's lock.
LOCKED_ONLY = os.environ.get("RVAULT_SOAK_SCOPE") == "locked"
SIGNALS = (signal.SIGKILL, signal.SIGTERM)
PROTOCOL_LEFTOVER = (".staged", ".rollback", ".bundle-journal")


@dataclass(frozen=True)
class Writer:
    name: str
    prepare: Callable[[Path], list[str]]
    bundle: tuple[str, str] | None = None  # (directory, lock target) relative to the vault
    backup: bool = False
    hash_bound: bool = True
    build: Callable[[Path], Path] = _vault.build
    #: The writer settles its bundle's journal itself before reading (settle_pending_bundle):
    #: a torn bundle is left to its next run, which must write the new generation at once.
    settles: bool = False


def _db(vault: Path) -> Path:
    return vault / _vault.DB


def _dry_sha(*args: str | Path) -> str:
    return _vault.ok(command("rvault-db", *args))["input_sha256"]


def prepare_mutate(vault: Path) -> list[str]:
    plan = vault.parent / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "mutations": [
                    {
                        "kind": "set_config",
                        "path": ["template_skip_patterns"],
                        "expect": {"$missing": True},
                        "value": ["template"],
                    }
                ],
            }
        )
    )
    sha = _dry_sha("mutate", _db(vault), plan)
    return command("rvault-db", "mutate", _db(vault), plan, "--apply", "--expected-sha256", sha)


def prepare_migrate(vault: Path) -> list[str]:
    db = _db(vault)
    document = json.loads(db.read_bytes())
    del document["schema_version"]
    document["config"]["schema_version"] = 1
    del document["config"]["pptx_directory_exclusions"]
    del document["qr_codes"]
    db.write_text(json.dumps(document, indent=2) + "\n")
    sha = _dry_sha("migrate", db)
    return command("rvault-db", "migrate", db, "--apply", "--expected-sha256", sha)


def _fingerprint() -> str:
    return _vault.ok(command("rvault-returns", "catalog"))["fingerprint"]


def prepare_claim(vault: Path) -> list[str]:
    args = [
        "queue",
        _db(vault),
        "claim",
        "--run-id",
        "reliability",
        "--batch-id",
        "1",
        "--now",
        "2026-11-30T12:00:00+00:00",
        "--talk",
        _vault.TALK,
        "--catalog-fingerprint",
        _fingerprint(),
    ]
    sha = _dry_sha(*args)
    return command("rvault-db", *args, "--apply", "--expected-sha256", sha)


def prepare_scan(vault: Path) -> list[str]:
    talks = vault / "shownotes" / "_talks"
    (talks / "2026-01-20-a-new-talk.md").write_text(
        "---\ntitle: A New Talk\ndate: 2026-01-20\nconference: Reliability Conf\n---\nBody.\n"
    )
    sha = _dry_sha("scan-shownotes", _db(vault))
    return command("rvault-db", "scan-shownotes", _db(vault), "--apply", "--expected-sha256", sha)


def prepare_transcript(vault: Path) -> list[str]:
    transcripts = vault / "transcripts"
    vtt = transcripts / f"{_vault.VIDEO_ID}.en.vtt"
    text = vtt.read_text()
    vtt.write_text(text.replace("slide", "picture"))
    assert vtt.read_text() != text
    return command(
        "rvault-transcript", "vtt-cleanup", vtt, transcripts / f"{_vault.VIDEO_ID}.txt", "--force"
    )


def prepare_video(vault: Path) -> list[str]:
    video = vault / "slides-rebuild" / _vault.VIDEO_ID / f"{_vault.VIDEO_ID}.mp4"
    _vault.make_video(video, ["Alpha", "Beta", "Gamma"])
    return _vault.video_argv(vault, video)


def prepare_pptx(vault: Path) -> list[str]:
    deck = vault.parent / "decks" / "deck.pptx"
    _vault.make_deck(deck, ["Opening", "A new middle", "Evidence", "Close"])
    return command(
        "rvault-pptx", "extract", deck, "--no-ocr", "--out", vault / "pptx" / "deck.extraction.json"
    )


def prepare_persist(vault: Path) -> list[str]:
    """The apply the dry run names (``next_command``): the run that writes is the one killed."""
    import shlex

    import _persist_producer as producer

    dry = _vault.ok(
        command(
            "rvault-returns",
            "persist",
            _db(vault),
            vault.parent / "returns.json",
            "--run-date",
            producer.RUN_DATE,
        )
    )
    assert dry["database_written"] is False
    script, *args = shlex.split(dry["next_command"])
    return command(script, *args)


def prepare_analysis_write(vault: Path) -> list[str]:
    outdir = vault / "analyses"
    outdir.mkdir()
    for name in ("2024-01-01-a.md", "2024-02-01-b.md"):
        (outdir / name).write_text(f"# an earlier hand-written analysis of {name}\n")
    return command(
        "rvault-analysis", "write", vault.parent / "returns.json", outdir, "--db", _db(vault)
    )


WRITERS = [
    Writer("mutate-apply", prepare_mutate),
    Writer("migrate-apply", prepare_migrate, backup=True),
    Writer("queue-claim", prepare_claim),
    Writer("scan-shownotes", prepare_scan),
    Writer(
        "transcript-vtt-cleanup",
        prepare_transcript,
        bundle=("transcripts", f"transcripts/{_vault.VIDEO_ID}.txt"),
        hash_bound=False,
        settles=True,
    ),
    Writer(
        "video-extract",
        prepare_video,
        bundle=(
            f"slides-rebuild/{_vault.VIDEO_ID}",
            f"slides-rebuild/{_vault.VIDEO_ID}/{_vault.VIDEO_ID}.video-extraction.json",
        ),
        hash_bound=False,
        settles=True,
    ),
    Writer("pptx-extract-out", prepare_pptx, hash_bound=False),
    Writer(
        "returns-persist",
        prepare_persist,
        build=lambda vault: _vault.returns_vault(vault, persisted=False),
    ),
    Writer(
        "analysis-write",
        prepare_analysis_write,
        bundle=("analyses", "analyses/.rvault-analysis"),
        hash_bound=False,
        build=lambda vault: _vault.returns_vault(vault, persisted=True),
    ),
]


def restore(pristine: Path, vault: Path) -> None:
    shutil.rmtree(vault)
    shutil.copytree(pristine, vault, symlinks=True)


def followup(vault: Path) -> Run:
    """A different hash-bound write: proves the lock and the database are usable."""
    plan = vault.parent / "followup-plan.json"
    plan.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "mutations": [
                    {
                        "kind": "set_config",
                        "path": ["reliability_followup"],
                        "expect": {"$missing": True},
                        "value": True,
                    }
                ],
            }
        )
    )
    sha = _dry_sha("mutate", _db(vault), plan)
    return run(
        command("rvault-db", "mutate", _db(vault), plan, "--apply", "--expected-sha256", sha)
    )


def backups(vault: Path) -> dict[str, bytes]:
    directory = vault / ".backups"
    if not directory.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in directory.iterdir() if p.is_file()}


@pytest.mark.parametrize("writer", WRITERS, ids=[w.name for w in WRITERS])
def test_writer_survives_kills_at_write_path_syscalls(
    writer: Writer, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    vault = writer.build(tmp_path / "vault")
    argv = writer.prepare(vault)
    pristine = tmp_path / "pristine"
    shutil.copytree(vault, pristine, symlinks=True)
    old = tree_bytes(vault)
    old_db = _db(vault).read_bytes()

    reference, events = trace_syscalls(argv)
    assert reference.returncode == 0, (reference.stdout, reference.stderr[-2000:])
    new = tree_bytes(vault)
    assert new != old, "the writer must change something for the test to mean anything"

    seed = sum(map(ord, writer.name))
    budget = None if SOAK else KILLS_PER_WRITER[DEPTH]
    points = kill_points(events, budget=budget, seed=seed, locked_only=LOCKED_ONLY)
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    for sig, (syscall, when) in signalled(points, seed):
        restore(pristine, vault)
        where = f"{sig.name} at {syscall}#{when}"
        killed = killed_run(argv, syscall, when, sig)
        problem = check_run(writer, vault, argv, killed, sig, old, new, old_db, outcomes)
        if problem:
            failures.append(f"{where}: {problem}")
    figures = {
        "writer": writer.name,
        "write_path_calls": len(events),
        "kill_points": len(points),
        "runs": len(signalled(points, seed)),
        "outcomes": dict(sorted(outcomes.items())),
        "failures": failures,
        "mode": ("soak-locked" if LOCKED_ONLY else "soak") if SOAK else DEPTH,
    }
    record_property("figures", figures)
    report_dir = os.environ.get("RVAULT_RELIABILITY_REPORT")
    if report_dir:
        Path(report_dir).mkdir(parents=True, exist_ok=True)
        (Path(report_dir) / f"crash-{writer.name}.json").write_text(json.dumps(figures, indent=2))
    assert not failures, "\n".join(failures)


def signalled(
    points: list[tuple[str, int]], seed: int
) -> list[tuple[signal.Signals, tuple[str, int]]]:
    """The (signal, kill point) runs: both signals at every point, or one each when quick.

    Quick alternates along the points from a seeded start: every point is
    still killed once, both signals are used, and the same runs repeat.
    """
    if DEPTH != "quick":
        return [(sig, point) for sig in SIGNALS for point in points]
    return [(SIGNALS[(seed + i) % len(SIGNALS)], point) for i, point in enumerate(points)]


def check_run(
    writer: Writer,
    vault: Path,
    argv: list[str],
    killed: Run,
    sig: signal.Signals,
    old: dict[str, bytes],
    new: dict[str, bytes],
    old_db: bytes,
    outcomes: Counter[str],
) -> str | None:
    """Everything the crash promise says about one killed run; a problem or None."""
    document = None
    if killed.stdout.strip():
        try:
            document = json.loads(killed.stdout)
        except json.JSONDecodeError:
            return f"stdout is not one JSON document: {killed.stdout[:200]!r}"
    state = tree_bytes(vault)
    if sig == signal.SIGKILL and writer.settles and state not in (old, new):
        # The writer's own next run settles the journal, then writes, on its first attempt.
        outcomes["bundle_torn_next_run_settled"] += 1
        again = run(argv)
        if again.returncode != 0:
            return f"the next run did not settle the torn bundle: {again.stdout[-400:]}"
        state = tree_bytes(vault)
    if sig == signal.SIGKILL and writer.bundle is not None and not writer.settles:
        # What the next writer of the bundle does first, under the bundle's lock.
        directory, lock_target = writer.bundle
        torn = state not in (old, new)
        settled = recover_bundle(vault / directory, vault / lock_target)
        if settled or torn:
            action = settled["action"] if settled else "nothing"
            outcomes[f"bundle_{'torn' if torn else 'whole'}_settled_{action}"] += 1
        state = tree_bytes(vault)
    if state == new:
        generation = "new"
    elif state == old:
        generation = "old"
    else:
        changed = sorted(
            k for k in {*old, *new, *state} if state.get(k) not in (old.get(k), new.get(k))
        )
        torn = sorted(k for k in state if state.get(k) != new.get(k))
        return f"neither generation (changed {changed}, differs from new in {torn})"
    code = None if document is None else (document.get("error") or {}).get("code")
    label = "no_document" if document is None else (code or "ok")
    outcomes[f"{sig.name}:{generation}:exit{killed.returncode}:{label}"] += 1
    if sig == signal.SIGTERM:
        if killed.returncode == 0 and generation != "new":
            return "exit 0 but the old generation is on disk"
        if code == "interrupted" and generation != "old":
            return "reported interrupted but the new generation landed"
    if writer.backup and generation == "new" and old_db not in backups(vault).values():
        return "the new database landed without a complete backup of the original bytes"
    if generation == "old":
        again = run(argv)
        if again.returncode != 0:
            return f"the next run failed: {again.stdout[-400:]}"
        if tree_bytes(vault) != new:
            return "the next run did not produce the new generation"
    elif not writer.hash_bound:
        again = run(argv)
        if again.returncode != 0 or tree_bytes(vault) != new:
            return f"re-running after a landed write failed: {again.stdout[-400:]}"
    after = followup(vault)
    if after.returncode != 0:
        return f"a follow-up database write failed: {after.stdout[-400:]}"
    leftovers = [p for p in hidden_leftovers(vault) if p.endswith(PROTOCOL_LEFTOVER)]
    if leftovers:
        return f"writer-protocol leftovers survived the next writer run: {leftovers}"
    frames = [p for p in hidden_leftovers(vault) if ".frames-" in p]
    if frames:
        outcomes["frames_dir_left"] += 1
    return None


RANDOM_KILLS = {"quick": 2, "sample": 6, "soak": 200}[DEPTH]
RANDOM_WRITERS = [w for w in WRITERS if w.name in {"mutate-apply", "transcript-vtt-cleanup"}]


@pytest.mark.parametrize("writer", RANDOM_WRITERS, ids=[w.name for w in RANDOM_WRITERS])
def test_writer_survives_signals_after_random_delays(writer: Writer, tmp_path: Path) -> None:
    """SIGKILL/SIGTERM after a random delay within the writer's own run time."""
    import random
    import subprocess
    import time

    vault = _vault.build(tmp_path / "vault")
    argv = writer.prepare(vault)
    pristine = tmp_path / "pristine"
    shutil.copytree(vault, pristine, symlinks=True)
    old, old_db = tree_bytes(vault), _db(vault).read_bytes()
    started = time.monotonic()
    assert run(argv).returncode == 0
    duration = time.monotonic() - started
    new = tree_bytes(vault)
    rng = random.Random(sum(map(ord, writer.name)))
    outcomes: Counter[str] = Counter()
    failures = []
    for attempt in range(RANDOM_KILLS):
        restore(pristine, vault)
        sig = SIGNALS[attempt % 2]
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.5, 1.0) * duration)
        child.send_signal(sig)
        out, err = child.communicate(timeout=120)
        killed = Run(child.returncode, out.decode(), err.decode(errors="replace"))
        problem = check_run(writer, vault, argv, killed, sig, old, new, old_db, outcomes)
        if problem:
            failures.append(f"{sig.name} #{attempt}: {problem}")
    assert sum(outcomes[k] for k in outcomes if ":" in k) == RANDOM_KILLS
    report_dir = os.environ.get("RVAULT_RELIABILITY_REPORT")
    if report_dir:
        Path(report_dir).mkdir(parents=True, exist_ok=True)
        figures = {
            "writer": writer.name,
            "runs": RANDOM_KILLS,
            "failures": failures,
            "outcomes": dict(sorted(outcomes.items())),
        }
        (Path(report_dir) / f"random-{writer.name}.json").write_text(json.dumps(figures))
    assert not failures, "\n".join(failures)
