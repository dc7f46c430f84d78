"""Disk full and read-only directories: a clear refusal, the old generation intact.

Two ways to run out of room, both always exercised:

- a real, tiny tmpfs holding the vault (``mount -t tmpfs -o size=N``; this
  suite runs as root in CI, and where mounting is not permitted the test
  uses a private user+mount namespace via ``unshare -rm``), filled so the
  new bytes cannot be staged, then remounted read-only;
- a simulation that works anywhere strace does: ``ENOSPC``, ``EDQUOT`` or
  ``EIO`` injected into the writer's data writes, fsyncs and renames
  (``strace -e inject=SC:error=E:when=N``), and ``EROFS`` into its creates.

After each: exit 2 with a stable code (never a traceback or exit 1 for an
environment error), the vault byte- and inode-identical, no staged file left
behind, and the same command succeeding once there is room again.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import _vault
import pytest
from _harness import (
    DEPTH,
    STRACE,
    Run,
    command,
    hidden_leftovers,
    run,
    trace_syscalls,
    tree_bytes,
)

ENV_CODES = {"io_error", "outdir_unwritable", "output_unwritable", "write_failed"}


def inode_state(root: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p.relative_to(root)): (p.stat().st_ino, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and not p.is_symlink()
        and not p.name.endswith(".lock")
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    }


def _can_mount() -> bool:
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"rv-mount-probe-{os.getpid()}"
    probe.mkdir(exist_ok=True)
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            return False
        subprocess.run(["umount", str(probe)], check=True)
        return True
    finally:
        probe.rmdir()


@contextmanager
def tmpfs(path: Path, size: int) -> Iterator[Path]:
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def remount(path: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(path)], check=True)


def big_plan(vault: Path, size: int) -> Path:
    plan = vault.parent / "big-plan.json"
    plan.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "mutations": [
                    {
                        "kind": "set_config",
                        "path": ["template_skip_patterns"],
                        "expect": {"$missing": True},
                        "value": ["x" * size],
                    }
                ],
            }
        )
    )
    return plan


def mutate(vault: Path, plan: Path) -> list[str]:
    db = vault / _vault.DB
    sha = _vault.ok(command("rvault-db", "mutate", db, plan))["input_sha256"]
    return command("rvault-db", "mutate", db, plan, "--apply", "--expected-sha256", sha)


def assert_refused_cleanly(done: Run, vault: Path, before: dict[str, tuple[int, bytes]]) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout[-600:], done.stderr[-600:])
    code = done.document["error"]["code"]
    assert code in ENV_CODES, done.document
    assert inode_state(vault) == before
    assert not [p for p in hidden_leftovers(vault) if p.endswith((".staged", ".rollback"))]
    return code


def test_a_full_tmpfs_refuses_cleanly_and_a_read_only_one_too(tmp_path: Path) -> None:
    if not _can_mount():
        # Not root (or no CAP_SYS_ADMIN): the documented simulation instead, the
        # same commands with ENOSPC on every data write after the writer's lock.
        _simulated_disk_full(tmp_path)
        return
    source = _vault.build(tmp_path / "build" / "vault")
    used = sum(p.stat().st_size for p in source.rglob("*") if p.is_file())
    mount = tmp_path / "mnt"
    with tmpfs(mount, used + 512 * 1024):
        vault = mount / "vault"
        shutil.copytree(source, vault, symlinks=True)
        for path in [vault / _vault.DB, *vault.rglob("*.video-extraction.json")]:
            path.write_bytes(path.read_bytes().replace(str(source).encode(), str(vault).encode()))
        # A larger caption file, prepared before the disk fills (for step 2).
        transcripts = vault / "transcripts"
        vtt = transcripts / f"{_vault.VIDEO_ID}.en.vtt"
        words = [f"{a}{b}" for a in ("ta", "ke", "mo", "ri", "su", "no") for b in range(200)]
        rng = random.Random(0)
        cues = "".join(
            f"\n00:{10 + i // 60:02d}:{i % 60:02d}.000 --> 00:{10 + i // 60:02d}:{i % 60:02d}.900\n"
            + " ".join(rng.choice(words) for _ in range(60))
            + "\n"
            for i in range(120)
        )
        vtt.write_text(vtt.read_text() + "\n" + cues)
        # Fill the filesystem to within a few KiB.
        st = os.statvfs(mount)
        (mount / "filler").write_bytes(b"\0" * max(0, st.f_bavail * st.f_frsize - 24 * 1024))

        # 1. the database: a 256 KiB change cannot be staged.
        plan = big_plan(tmp_path / "build", 256 * 1024)
        before = inode_state(vault)
        argv = mutate(vault, plan)
        code = assert_refused_cleanly(run(argv), vault, before)
        # 2. the transcript bundle, same disk.
        before = inode_state(vault)
        bundle_argv = command(
            "rvault-transcript",
            "vtt-cleanup",
            vtt,
            transcripts / f"{_vault.VIDEO_ID}.txt",
            "--force",
        )
        done = run(bundle_argv)
        if done.returncode == 0:
            pytest.fail("the bundle fitted; the filler left too much room")
        bundle_code = assert_refused_cleanly(done, vault, before)

        # Room again: the same commands succeed and leave nothing behind.
        (mount / "filler").unlink()
        assert run(argv).returncode == 0
        assert run(bundle_argv).returncode == 0
        assert not [p for p in hidden_leftovers(vault) if p.endswith((".staged", ".rollback"))]
        # 4. read-only: every writer is refused, nothing changes.
        remount(mount, "ro")
        before = inode_state(vault)
        plan2 = tmp_path / "ro-plan.json"
        plan2.write_text(plan.read_text().replace("template_skip_patterns", "ro_probe"))
        db = vault / _vault.DB
        sha = _vault.ok(command("rvault-db", "mutate", db, plan2))["input_sha256"]
        ro = run(command("rvault-db", "mutate", db, plan2, "--apply", "--expected-sha256", sha))
        assert ro.returncode == 2, ro.stdout
        assert inode_state(vault) == before
        remount(mount, "rw")
    record = os.environ.get("RVAULT_RELIABILITY_REPORT")
    if record:
        Path(record).mkdir(parents=True, exist_ok=True)
        (Path(record) / "disk-full-tmpfs.json").write_text(
            json.dumps(
                {
                    "database_code": code,
                    "bundle_code": bundle_code,
                    "read_only_code": ro.document["error"]["code"],
                }
            )
        )


def _simulated_disk_full(tmp_path: Path) -> None:
    assert STRACE is not None, "neither a tmpfs nor strace: disk full cannot be exercised"
    vault = _vault.build(tmp_path / "sim" / "vault")
    argv = mutate(vault, big_plan(tmp_path / "sim", 256 * 1024))
    _, events = trace_syscalls(argv)
    shutil.rmtree(vault)
    vault = _vault.build(tmp_path / "sim2" / "vault")
    argv = mutate(vault, big_plan(tmp_path / "sim", 256 * 1024))
    locked = next(i for i, (sc, _) in enumerate(events) if sc == "flock")
    first = next(n for sc, n in events[locked:] if sc == "pwrite64")
    before = inode_state(vault)
    inject = f"inject=pwrite64:error=ENOSPC:when={first}+"
    done = run([STRACE, "-qq", "-o", "/dev/null", "-e", "trace=pwrite64", "-e", inject, *argv])
    assert_refused_cleanly(done, vault, before)
    assert run(argv).returncode == 0


INJECTIONS = [
    ("pwrite64", "ENOSPC"),
    ("pwrite64", "EDQUOT"),
    ("fsync", "EIO"),
    ("fsync", "ENOSPC"),
    ("renameat", "EIO"),
    ("openat", "EROFS"),
    ("mkdirat", "ENOSPC"),
    ("linkat", "EMLINK"),
]
# make test (quick depth) injects one error per call, and a call's second errno
# (EDQUOT beside ENOSPC, ENOSPC beside EIO; the same refusal path) only while a
# writer has had fewer than MIN_TRIED; make reliability and the soak inject all.
FIRST_PER_CALL = [p for i, p in enumerate(INJECTIONS) if p[0] not in dict(INJECTIONS[:i])]
VARIANTS = [p for p in INJECTIONS if p not in FIRST_PER_CALL]
MIN_TRIED = 4


@pytest.fixture(scope="module")
def vault_for_injection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _vault.build(tmp_path_factory.mktemp("inject") / "vault")


@pytest.mark.parametrize("writer", ["mutate", "migrate", "transcript", "pptx"])
def test_injected_io_errors_refuse_cleanly(
    vault_for_injection: Path, writer: str, tmp_path: Path
) -> None:
    assert STRACE is not None
    vault = vault_for_injection
    pristine = tmp_path / "pristine"
    shutil.copytree(vault, pristine, symlinks=True)
    if writer == "mutate":
        argv = mutate(vault, big_plan(tmp_path, 16))
    elif writer == "migrate":
        db = vault / _vault.DB
        document = json.loads(db.read_bytes())
        del document["schema_version"]
        document["config"]["schema_version"] = 1
        del document["config"]["pptx_directory_exclusions"]
        db.write_text(json.dumps(document, indent=2) + "\n")
        sha = _vault.ok(command("rvault-db", "migrate", db))["input_sha256"]
        argv = command("rvault-db", "migrate", db, "--apply", "--expected-sha256", sha)
    elif writer == "transcript":
        transcripts = vault / "transcripts"
        vtt = transcripts / f"{_vault.VIDEO_ID}.en.vtt"
        vtt.write_text(vtt.read_text().replace("slide", "picture"))
        argv = command(
            "rvault-transcript",
            "vtt-cleanup",
            vtt,
            transcripts / f"{_vault.VIDEO_ID}.txt",
            "--force",
        )
    else:
        deck = tmp_path / "deck.pptx"
        _vault.make_deck(deck, ["Changed", "Deck"])
        argv = command(
            "rvault-pptx",
            "extract",
            deck,
            "--no-ocr",
            "--out",
            vault / "pptx" / "deck.extraction.json",
        )
    setup = tmp_path / "setup"
    shutil.copytree(vault, setup, symlinks=True)
    _, events = trace_syscalls(argv)
    shutil.rmtree(vault)
    shutil.copytree(setup, vault, symlinks=True)
    locked = next(i for i, (sc, _) in enumerate(events) if sc == "flock")
    first_after_lock: dict[str, int] = {}
    for sc, n in events[locked:]:
        first_after_lock.setdefault(sc, n)
    problems = []
    tried = 0
    try:
        for syscall, error in FIRST_PER_CALL + VARIANTS:
            if syscall not in first_after_lock:
                continue  # this writer never makes that call: nothing to inject
            if DEPTH == "quick" and (syscall, error) in VARIANTS and tried >= MIN_TRIED:
                continue
            if writer == "pptx" and syscall == "openat":
                # its supervisor polls /proc (psutil) before the lock, so the count of
                # openat calls shifts between runs; the read-only tmpfs covers EROFS
                continue
            tried += 1
            shutil.rmtree(vault)
            shutil.copytree(setup, vault, symlinks=True)
            before = inode_state(vault)
            # Every call from the writer's first one after taking its lock fails.
            inject = f"inject={syscall}:error={error}:when={first_after_lock[syscall]}+"
            done = run(
                [STRACE, "-qq", "-o", "/dev/null", "-e", f"trace={syscall}", "-e", inject, *argv]
            )
            where = f"{syscall}={error}"
            if done.returncode != 2:
                problems.append(
                    f"{where}: exit {done.returncode}: {done.stdout[-300:]} {done.stderr[-1500:]}"
                )
                continue
            if done.document["error"]["code"] not in ENV_CODES:
                problems.append(f"{where}: code {done.document['error']['code']}")
            if inode_state(vault) != before:
                problems.append(f"{where}: the vault changed")
            if [p for p in hidden_leftovers(vault) if p.endswith((".staged", ".rollback"))]:
                problems.append(f"{where}: staged files left")
            again = run(argv)
            if again.returncode != 0:
                problems.append(f"{where}: the next run failed: {again.stdout[-300:]}")
    finally:
        shutil.rmtree(vault)
        shutil.copytree(pristine, vault, symlinks=True)
    assert tried >= MIN_TRIED, first_after_lock
    assert not problems, "\n".join(problems)
    assert tree_bytes(vault) == tree_bytes(pristine)
