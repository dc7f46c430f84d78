"""One apply protocol for every writing command: same flags, same codes, lock-free dry runs.

Each writing command is run with the same five mistakes; every one is
refused with the same code (exit 2, ``cli-failure`` v1 with a hint) and the
database's bytes and inode unchanged. Dry runs never create the writer's
sibling lock file, so a read-only vault can still be inspected.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_contracts.schemas import schema_issues
from rvault_contracts.writer import lock_path_for
from rvault_testkit.plugin import run_cli
from rvault_tracking_db.cli import main

NOW = "2026-07-31T18:00:00+00:00"
M = {"$missing": True}


def _run(*args: str | Path) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([str(a) for a in args])
    return code, json.loads(out.getvalue())


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    qb.write_transcript(vault, "transcripts/b.txt")
    qb.write_pdf(vault / "slides" / "c.pdf")
    site = tmp_path / "site" / "_talks"
    site.mkdir(parents=True)
    (site / "2024-09-01-new.md").write_text(
        "---\ntitle: New\nconference: C\ndate: 2024-09-01\n---\n", encoding="utf-8"
    )
    talks = [
        qb.processed_talk("2023-01-01-done.md", 3),
        qb.pending_talk("2024-02-01-b.md", transcript_path="transcripts/b.txt"),
        qb.pending_talk("2024-03-01-c.md"),
    ]
    shownotes = {
        "enabled": True,
        "source": {"type": "local_jekyll", "path_or_url": str(site.parent)},
    }
    db = qb.write_db(vault, qb.database(talks, shownotes=shownotes))
    plans = tmp_path / "plans"
    plans.mkdir()
    (plans / "mutate.json").write_text(
        json.dumps(
            {
                "schema_version": 1,
                "mutations": [
                    {
                        "kind": "set_config",
                        "path": ["python_path"],
                        "expect": M,
                        "value": "/usr/bin/python3",
                    }
                ],
            }
        )
    )
    (plans / "sources.json").write_text(
        json.dumps(
            {
                "schema_version": 1,
                "mutations": [
                    {
                        "kind": "register_transcript",
                        "filename": "2024-03-01-c.md",
                        "expect": M,
                        "value": "transcripts/b.txt",
                    }
                ],
            }
        )
    )
    os.chdir(vault)  # the paths typed below are vault-relative: work inside the vault
    return db


def _commands(db: Path) -> dict[str, tuple[str | Path, ...]]:
    plans = db.parent.parent / "plans"
    claim = ("--run-id", "r", "--batch-id", "b", "--now", NOW, "--catalog-fingerprint", qb.FP)
    return {
        "mutate": ("mutate", db, plans / "mutate.json"),
        "migrate": ("migrate", db),
        "sources": ("sources", db, plans / "sources.json"),
        "register-transcript": (
            "register-transcript",
            db,
            "--talk",
            "2024-03-01-c.md",
            "transcripts/b.txt",
        ),
        "register-slides": ("register-slides", db, "--talk", "2024-03-01-c.md", "slides/c.pdf"),
        "add-talk": ("add-talk", db, "--title", "T", "--conference", "C", "--date", "2024-05-05"),
        "queue normalize": ("queue", db, "normalize"),
        "queue claim": ("queue", db, "claim", *claim, "--talk", "2024-02-01-b.md"),
        "queue recover": ("queue", db, "recover", "--run-id", "r", "--batch-id", "b", "--now", NOW),
        "scan-shownotes": ("scan-shownotes", db),
    }


COMMANDS = list(_commands(Path("x")))
MISTAKES = [
    (("--apply",), "expected_sha256_required"),
    (("--expected-sha256", "0" * 64), "expected_sha256_without_apply"),
    (("--apply", "--expected-sha256", "ABC"), "invalid_expected_sha256"),
    (("--apply", "--expected-sha256", "0" * 64), "expected_sha256_mismatch"),
    (("--apply", "--expected-sha256", "missing"), "expected_sha256_mismatch"),
]


@pytest.mark.parametrize("name", COMMANDS)
def test_every_writing_command_refuses_the_same_mistake_with_the_same_code(
    tmp_path: Path, snapshot_file, name: str
) -> None:
    db = _vault(tmp_path)
    if name == "queue recover":  # a batch to recover
        _claim_applied(db)
    base = _commands(db)[name]
    before = snapshot_file(db)
    for extra, code in MISTAKES:
        exit_code, document = _run(*base, *extra)
        assert exit_code == 2, (name, extra, document)
        assert document["error"]["code"] == code, (name, extra, document)
        assert document["error"]["path"] in ("--apply", "--expected-sha256"), document
        assert document["hint"], document
        assert schema_issues("cli-failure", 1, document) == []
    assert snapshot_file(db) == before


@pytest.mark.parametrize("name", COMMANDS)
def test_dry_runs_take_no_lock_and_apply_binds_to_their_digest(
    tmp_path: Path, snapshot_file, name: str
) -> None:
    db = _vault(tmp_path)
    if name == "queue recover":
        _claim_applied(db)
        lock_path_for(db).unlink()  # the persistent lock of that earlier apply
    base = _commands(db)[name]
    before = snapshot_file(db)
    code, dry = _run(*base)
    assert code == 0, dry
    assert dry["database_written"] is False
    assert not lock_path_for(db).exists(), "a dry run must not create the writer lock"
    assert snapshot_file(db) == before
    writes = dry["output_sha256"] != dry["input_sha256"]
    apply_args = (*base, "--apply", "--expected-sha256", dry["input_sha256"])
    if writes:  # the dry run names its apply: the same words, quoted, with the digest
        assert dry["next_command"] == shlex.join(["rvault-db", *map(str, apply_args)]), dry
    else:
        assert dry["next_command"] is None, dry
    code, applied = _run(*apply_args)
    assert code == 0, applied
    assert applied["output_sha256"] == dry["output_sha256"] == qb.sha(db.read_bytes())
    assert applied["next_command"] is None


def test_init_names_its_apply_with_the_missing_digest(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    db = vault / "tracking-database.json"
    code, dry = _run("init", vault)
    assert code == 0, dry
    assert not db.exists()
    assert dry["next_command"] == shlex.join(
        ["rvault-db", "init", str(vault), "--apply", "--expected-sha256", "missing"]
    )
    code, applied = _run(*shlex.split(dry["next_command"])[1:])
    assert code == 0 and applied["database_written"] is True, applied
    assert applied["next_command"] is None and db.exists()


def _claim_applied(db: Path) -> dict[str, Any]:
    args = _commands(db)["queue claim"]
    code, dry = _run(*args)
    assert code == 0, dry
    code, applied = _run(*args, "--apply", "--expected-sha256", dry["input_sha256"])
    assert code == 0, applied
    return applied


def test_a_claim_retried_with_the_pre_claim_digest_replays(tmp_path: Path, snapshot_file) -> None:
    """An agent whose response was lost retries the exact command: it gets the claim back."""
    db = _vault(tmp_path)
    args = _commands(db)["queue claim"]
    _, dry = _run(*args)
    first = _claim_applied(db)
    after = snapshot_file(db)
    code, again = _run(*args, "--apply", "--expected-sha256", dry["input_sha256"])
    assert code == 0, again
    assert again["replayed"] is True and again["database_written"] is False
    assert again["members"] == first["members"]
    assert snapshot_file(db) == after


def test_a_claim_that_selects_nothing_says_why(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    claim = ("queue", db, "claim", "--run-id", "r", "--batch-id", "b2", "--now", NOW)
    code, document = _run(*claim, "--limit", "5", "--catalog-fingerprint", "f" * 64)
    assert code == 0 and document["member_count"] == 1  # the one talk with a transcript
    qb.write_db(db.parent, dict(qb.read_db(db), talks=[qb.pending_talk("2024-03-01-c.md")]))
    before = snapshot_file(db)
    code, document = _run(*claim, "--limit", "5")
    assert code == 2 and document["error"]["code"] == "nothing_to_claim", document
    assert document["skipped"] == [
        {"filename": "2024-03-01-c.md", "reason": "no_source_capabilities"}
    ]
    assert "1 no_source_capabilities" in document["error"]["message"]
    assert "register-transcript" in document["hint"]
    assert snapshot_file(db) == before


def test_a_future_now_is_refused(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    for action in ("claim", "recover"):
        code, document = (
            _run(
                "queue",
                db,
                action,
                "--run-id",
                "r",
                "--batch-id",
                "b",
                "--now",
                "2999-01-01T00:00:00+00:00",
                "--talk",
                "2024-02-01-b.md",
            )
            if action == "claim"
            else _run(
                "queue",
                db,
                action,
                "--run-id",
                "r",
                "--batch-id",
                "b",
                "--now",
                "2999-01-01T00:00:00+00:00",
            )
        )
        assert code == 2 and document["error"]["code"] == "now_in_future", document
        assert document["error"]["path"] == "--now" and document["hint"]
    assert snapshot_file(db) == before


def test_the_catalog_fingerprint_refusal_names_the_command_to_run(
    tmp_path: Path, snapshot_file
) -> None:
    db = _vault(tmp_path)
    qb.write_db(db.parent, dict(qb.read_db(db), talks=qb.read_db(db)["talks"][1:]))
    before = snapshot_file(db)
    code, document = _run(
        "queue", db, "claim", "--run-id", "r", "--batch-id", "b", "--now", NOW, "--limit", "1"
    )
    assert code == 2 and document["error"]["code"] == "catalog_fingerprint_required"
    assert "rvault-returns catalog" in document["hint"]
    assert snapshot_file(db) == before


def test_an_unknown_mutation_kind_lists_the_valid_kinds(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    plan = tmp_path / "bad.json"
    plan.write_text(json.dumps({"schema_version": 1, "mutations": [{"kind": "set_all"}]}))
    code, document = _run("mutate", db, plan)
    assert code == 2 and document["error"]["code"] == "unknown_mutation_kind"
    assert "set_config" in document["valid_kinds"] and "set_config" in document["hint"]


# --- init ---------------------------------------------------------------------------


def test_init_writes_the_bytes_of_the_plan_route(tmp_path: Path) -> None:
    site = tmp_path / "site" / "_talks"
    site.mkdir(parents=True)
    decks = tmp_path / "decks"
    decks.mkdir()
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    options = ("--shownotes-source", site.parent, "--pptx-source", decks)
    dry = run_cli("rvault-db", "init", one, *options).json
    assert dry["database_written"] is False and not (one / qb.DB_NAME).exists()
    assert not lock_path_for(one / qb.DB_NAME).exists()
    applied = run_cli("rvault-db", "init", one, *options, "--apply", "--expected-sha256", "missing")
    assert applied.returncode == 0, applied.stdout
    plan = tmp_path / "init.json"
    plan.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "mutations": [
                    {
                        "kind": "initialize_database",
                        "config": {
                            "shownotes": {
                                "enabled": True,
                                "source": {"type": "local_jekyll", "path_or_url": str(site.parent)},
                            },
                            "pptx_source_dir": str(decks),
                        },
                    }
                ],
            }
        )
    )
    routed = run_cli(
        "rvault-db", "mutate", two / qb.DB_NAME, plan, "--apply", "--expected-sha256", "missing"
    )
    assert routed.returncode == 0, routed.stdout
    assert (one / qb.DB_NAME).read_bytes() == (two / qb.DB_NAME).read_bytes()
    assert applied.json["output_sha256"] == dry["output_sha256"]
    again = run_cli("rvault-db", "init", one, *options, "--apply", "--expected-sha256", "missing")
    assert again.returncode == 2 and again.json["error"]["code"] == "expected_sha256_mismatch"


@pytest.mark.parametrize(
    ("config", "code"),
    [
        (
            {
                "shownotes": {
                    "enabled": True,
                    "source": {"type": "local_jekyll", "path_or_url": "relative/site"},
                }
            },
            "shownotes_root_invalid",
        ),
        (
            {
                "shownotes": {
                    "enabled": True,
                    "source": {"type": "local_jekyll", "path_or_url": "/nonexistent/site"},
                }
            },
            "shownotes_directory_missing",
        ),
        ({"pptx_source_dir": "decks"}, "pptx_source_dir_invalid"),
        ({"pptx_source_dir": "/nonexistent/decks"}, "pptx_source_dir_missing"),
    ],
)
def test_init_checks_locations_by_the_readers_rules(
    tmp_path: Path, snapshot_tree, config: dict[str, Any], code: str
) -> None:
    """A relative shownotes root used to be accepted at init and refused by the scan."""
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {"schema_version": 1, "mutations": [{"kind": "initialize_database", "config": config}]}
        )
    )
    vault = tmp_path / "vault"
    vault.mkdir()
    before = snapshot_tree(vault)
    code_, document = _run("mutate", vault / qb.DB_NAME, plan)
    assert code_ == 2 and document["error"]["code"] == code, document
    code_, document = _run(
        "mutate", vault / qb.DB_NAME, plan, "--apply", "--expected-sha256", "missing"
    )
    assert code_ == 2 and document["error"]["code"] == code, document
    assert snapshot_tree(vault) == before


def test_init_needs_an_existing_vault_directory(tmp_path: Path) -> None:
    code, document = _run("init", tmp_path / "absent")
    assert code == 2 and document["error"]["code"] == "vault_root_missing"
    assert "mkdir" in document["hint"]
    assert not (tmp_path / "absent").exists()


def test_init_options_make_relative_paths_absolute_and_pick_the_generator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "site" / "content" / "speaking").mkdir(parents=True)
    (tmp_path / "vault").mkdir()
    monkeypatch.chdir(tmp_path)
    args = (
        "init",
        "vault",
        "--shownotes-source",
        "site",
        "--shownotes-type",
        "local_hugo",
        "--talks-subdir",
        "content/speaking",
    )
    code, dry = _run(*args)
    assert code == 0, dry
    code, applied = _run(*args, "--apply", "--expected-sha256", "missing")
    assert code == 0, applied
    config = qb.read_db(tmp_path / "vault" / qb.DB_NAME)["config"]
    assert config["shownotes"] == {
        "enabled": True,
        "source": {
            "path_or_url": str(tmp_path / "site"),
            "talks_subdir": "content/speaking",
            "type": "local_hugo",
        },
    }
    assert config["schema_version"] == 2 and ".git" in config["pptx_directory_exclusions"]
    code, scan = _run("scan-shownotes", tmp_path / "vault" / qb.DB_NAME)
    assert code == 0 and scan["shownotes"]["talks_directory"] == str(
        tmp_path / "site" / "content" / "speaking"
    )
    code, missing = _run("init", tmp_path / "other", "--talks-subdir", "x")
    assert code == 2 and missing["error"]["code"] == "vault_root_missing"
