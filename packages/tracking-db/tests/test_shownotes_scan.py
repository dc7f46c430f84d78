"""``rvault-db scan-shownotes DB [--apply]``: dispositions, apply, no-ops and refusals."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli
from rvault_tracking_db.cli import main

VID = "dQw4w9WgXcQ"
REJECTION = {
    "schema_version": 1,
    "source_type": "video",
    "url": f"https://www.youtube.com/watch?v={VID}",
    "reason": "wrong_delivery",
    "evidence": "a different city's delivery",
    "verified_at": "2026-07-01T10:00:00+00:00",
}
UNRELATED = dict(
    REJECTION, source_type="slides", url="https://drive.google.com/file/d/1ZZZZZZZZZZZ/view"
)


def _bound(db: Path, args: tuple[str, ...]) -> tuple[str, ...]:
    """``--apply`` bound to the bytes on disk now (the one apply protocol)."""
    if "--apply" not in args or "--expected-sha256" in args:
        return args
    try:
        digest = sha256_bytes(db.read_bytes())
    except OSError:
        digest = "0" * 64
    return (*args, "--expected-sha256", digest)


def _scan(db: Path, *args: str) -> tuple[int, dict[str, Any]]:
    args = _bound(db, args)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["scan-shownotes", str(db), *args])
    return code, json.loads(out.getvalue())


def _page(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _site(
    tmp_path: Path, talks: list[dict], source_type: str = "local_jekyll", subdir: str = "_talks"
):
    site = tmp_path / "site"
    talks_dir = site / subdir
    talks_dir.mkdir(parents=True)
    shownotes = {
        "enabled": True,
        "source": {"type": source_type, "path_or_url": str(site), "talks_subdir": subdir},
    }
    db = qb.write_db(tmp_path / "vault", qb.database(talks, shownotes=shownotes))
    return db, talks_dir


def _entries(report: dict) -> dict[str, dict]:
    return {e["filename"]: e for e in report["entries"]}


def test_every_disposition_and_an_exact_apply(tmp_path: Path, snapshot_file) -> None:
    talks = [
        qb.pending_talk(
            "2024-01-01-fill.md",
            title="Fill Me (DevConf 2024)",
            conference="DevConf",
            date="2024-01-01",
            video_url="",
        ),
        qb.pending_talk("2024-02-01-same.md", title="Same", conference="JFokus", date="2024-02-01"),
        qb.pending_talk(
            "2024-03-01-renamed.md", title="Old Title", conference="X", date="2024-03-01"
        ),
        qb.pending_talk(
            "2024-04-01-clash.md", title="Clash", conference="Stored Conf", date="2024-04-01"
        ),
        qb.pending_talk(
            "2024-05-01-rejected.md", title="Rejected", source_rejections=[UNRELATED, REJECTION]
        ),
        qb.pending_talk("Existing-Case.md", title="Case"),
    ]
    db, d = _site(tmp_path, talks)
    _page(d, "2024-01-01-fill.md", f"---\ntitle: Fill Me\n---\nVideo: https://youtu.be/{VID}\n")
    _page(d, "2024-02-01-same.md", "---\ntitle: Same\nconference: JFokus\n---\n")
    _page(d, "2024-03-01-renamed.md", "# Completely New Title\n")
    _page(d, "2024-04-01-clash.md", "---\ntitle: Clash\nevent: Other Conf\n---\n")
    _page(
        d,
        "2024-05-01-rejected.md",
        f"---\ntitle: Rejected\n---\n**Recording:** https://youtu.be/{VID}\n",
    )
    _page(d, "existing-case.md", "---\ntitle: Case\nconference: C\ndate: 2024-01-01\n---\n")
    _page(d, "2024-06-01-new.md", '+++\ntitle = "New Talk"\nconference = "NewConf"\n+++\n')
    _page(d, "2024-07-01-incomplete.md", "# Only A Title\n")
    _page(d, "nested/Dup.md", "---\ntitle: Dup\nconference: C\ndate: 2024-01-01\n---\n")
    _page(d, "dup.md", "---\ntitle: Dup\nconference: C\ndate: 2024-01-01\n---\n")
    _page(d, "2024-08-01-bad.md", "---\ntitle: [oops\n---\n")
    (d / "2024-09-01-latin.md").write_bytes(b"---\ntitle: caf\xe9\n---\n")
    (d / "notes.txt").write_text("not markdown")
    before = snapshot_file(db)
    code, report = _scan(db)
    assert code == 0
    assert schema_issues("shownotes-scan-report", 3, report) == []
    assert snapshot_file(db) == before
    assert report["mode"] == "dry-run" and report["database_written"] is False
    assert report["input_sha256"] == before_sha(before)
    # with mutations planned, the dry-run names the digest apply will install
    assert report["output_sha256"] != report["input_sha256"]
    entries = _entries(report)
    assert report["scanned_file_count"] == 12 == len(report["entries"])
    fill = entries["2024-01-01-fill.md"]
    assert fill["disposition"] == "update"
    assert fill["changes"] == {
        "video_url": {"before_exists": True, "before": "", "after": f"https://youtu.be/{VID}"},
        "youtube_id": {"before_exists": False, "before": None, "after": VID},
    }
    assert entries["2024-02-01-same.md"]["disposition"] == "unchanged"
    assert [i["code"] for i in entries["2024-03-01-renamed.md"]["issues"]] == [
        "existing_title_conflict"
    ]
    clash = entries["2024-04-01-clash.md"]["issues"]
    assert [(i["code"], i["field"]) for i in clash] == [("existing_value_conflict", "conference")]
    rejected = entries["2024-05-01-rejected.md"]
    assert rejected["disposition"] == "review_required" and rejected["changes"] == {}
    issue = rejected["issues"][0]
    assert issue["code"] == "rejected_source_reappeared"
    assert issue["matched_rejection"] == {
        "source_type": "video",
        "url": REJECTION["url"],
        "provider_id": VID,
        "reason": "wrong_delivery",
        "evidence": REJECTION["evidence"],
        "verified_at": REJECTION["verified_at"],
    }
    assert issue["match"] == {
        "method": "provider_id",
        "candidate_url": f"https://youtu.be/{VID}",
        "candidate_provider_id": VID,
    }
    assert [i["code"] for i in entries["existing-case.md"]["issues"]] == [
        "normalized_filename_collision"
    ]
    new = entries["2024-06-01-new.md"]
    assert new["disposition"] == "add"
    assert new["proposal"] == {
        "filename": "2024-06-01-new.md",
        "title": "New Talk",
        "conference": "NewConf",
        "date": "2024-06-01",
    }
    incomplete = entries["2024-07-01-incomplete.md"]["issues"]
    assert [(i["code"], i["field"]) for i in incomplete] == [("incomplete_metadata", "conference")]
    assert {i["code"] for i in entries["Dup.md"]["issues"]} == {"normalized_filename_collision"}
    assert {i["code"] for i in entries["dup.md"]["issues"]} == {"normalized_filename_collision"}
    assert entries["2024-08-01-bad.md"]["issues"][0]["code"] == "frontmatter_malformed"
    assert entries["2024-09-01-latin.md"]["issues"][0]["code"] == "unreadable_page"
    assert report["counts"] == {"add": 1, "update": 1, "unchanged": 1, "review_required": 9}
    assert report["mutation_count"] == 2

    result = run_cli("rvault-db", "scan-shownotes", db, *_bound(db, ("--apply",)))
    assert result.returncode == 0, result.stdout
    applied = result.json
    assert schema_issues("shownotes-scan-report", 3, applied) == []
    assert applied["database_written"] is True and applied["durability_state"] == "durable"
    assert applied["output_sha256"] == qb.sha(db.read_bytes()) == report["output_sha256"]
    assert {e["filename"] for e in applied["entries"] if e["applied"]} == {
        "2024-01-01-fill.md",
        "2024-06-01-new.md",
    }
    document = qb.read_db(db)
    by_name = {t["filename"]: t for t in document["talks"]}
    assert by_name["2024-06-01-new.md"] == {
        "schema_version": 5,
        "filename": "2024-06-01-new.md",
        "title": "New Talk",
        "conference": "NewConf",
        "date": "2024-06-01",
        "status": "pending",
    }
    assert by_name["2024-01-01-fill.md"]["title"] == "Fill Me (DevConf 2024)"
    assert by_name["2024-01-01-fill.md"]["youtube_id"] == VID
    assert by_name["2024-04-01-clash.md"]["conference"] == "Stored Conf"
    assert "video_url" not in by_name["2024-05-01-rejected.md"]
    assert len(document["talks"]) == len(talks) + 1

    after = snapshot_file(db)
    code, again = _scan(db, "--apply")
    assert code == 0 and again["mutation_count"] == 0
    assert again["durability_state"] == "unchanged" and again["database_written"] is False
    assert snapshot_file(db) == after


def before_sha(state: Any) -> str:
    return qb.sha(state.data)


def test_live_claim_blocks_updates(tmp_path: Path) -> None:
    claim = {
        "schema_version": 1,
        "run_id": "r",
        "batch_id": "b",
        "claimed_at": "2026-01-01T00:00:00Z",
        "previous_status": "pending",
        "reprocess_generation": 1,
        "state": "claimed",
    }
    talk = qb.pending_talk("a.md", status="reprocessing-inflight", _queue_claim=claim, title="A")
    db, d = _site(tmp_path, [talk])
    _page(d, "a.md", "---\ntitle: A\nconference: C\n---\n")
    _, report = _scan(db)
    assert [i["code"] for i in report["entries"][0]["issues"]] == ["talk_under_live_claim"]


@pytest.mark.parametrize(
    ("source_type", "subdir", "files"),
    [
        (
            "local_hugo",
            "content/talks",
            {"slug/index.md": '+++\ntitle = "H"\n+++\n', "_index.md": "x"},
        ),
        ("local_eleventy", "talks", {"slug.md": '---json\n{"title": "E"}\n---\n'}),
        ("local_astro", "src/content/talks", {"slug.mdx": "---\ntitle: A\n---\n"}),
    ],
)
def test_static_site_generators(tmp_path: Path, source_type: str, subdir: str, files: dict) -> None:
    db, d = _site(tmp_path, [], source_type=source_type, subdir=subdir)
    for name, text in files.items():
        _page(d, name, text)
    code, report = _scan(db)
    assert code == 0 and report["shownotes"]["source_type"] == source_type
    assert [e["filename"] for e in report["entries"]] == ["slug.md"]
    assert report["shownotes"]["talks_directory"] == str(d)


def test_symlinked_pages_are_skipped_with_a_warning(tmp_path: Path) -> None:
    db, d = _site(tmp_path, [])
    outside = _page(tmp_path, "outside.md", "---\ntitle: O\n---\n")
    (d / "linked.md").symlink_to(outside)
    _, report = _scan(db)
    assert report["entries"] == [] and report["warnings"] == ["symbolic link skipped: linked.md"]


@pytest.mark.parametrize(
    ("shownotes", "operation"),
    [
        (
            {"enabled": False, "source": {"type": "local_jekyll", "path_or_url": "/nowhere"}},
            "skipped_disabled",
        ),
        (
            {"enabled": True, "source": {"type": "remote_url", "path_or_url": "https://x.example"}},
            "skipped_nonlocal",
        ),
        ({"enabled": True, "source": {"type": "none"}}, "skipped_nonlocal"),
        (None, "skipped_disabled"),
    ],
)
def test_nonlocal_and_disabled_sources_are_structured_no_ops(
    tmp_path: Path, snapshot_file, shownotes: dict | None, operation: str
) -> None:
    extra = {"shownotes": shownotes} if shownotes is not None else {}
    db = qb.write_db(tmp_path, qb.database([qb.pending_talk("a.md")], **extra))
    before = snapshot_file(db)
    code, report = _scan(db, "--apply")
    assert code == 0 and report["operation"] == operation
    assert report["scanned_file_count"] == 0 and report["entries"] == []
    assert report["database_written"] is False and report["durability_state"] == "unchanged"
    assert schema_issues("shownotes-scan-report", 3, report) == []
    assert snapshot_file(db) == before


def test_legacy_talks_source_dir(tmp_path: Path) -> None:
    talks_dir = tmp_path / "legacy" / "_talks"
    _page(talks_dir, "2024-01-01-x.md", "---\ntitle: X\nconference: C\n---\n")
    db = qb.write_db(tmp_path / "vault", qb.database([], talks_source_dir=str(talks_dir)))
    _, report = _scan(db)
    assert report["shownotes"]["config_origin"] == "talks_source_dir"
    assert report["shownotes"]["talks_directory"] == str(talks_dir)
    assert report["entries"][0]["disposition"] == "add"


@pytest.mark.parametrize(
    ("subdir", "code"),
    [
        ("../escape", "shownotes_subdir_invalid"),
        ("missing", "shownotes_directory_missing"),
        ("link", "symlink_refused"),
    ],
)
def test_bad_shownotes_locations_are_refused(
    tmp_path: Path, snapshot_file, subdir: str, code: str
) -> None:
    site = tmp_path / "site"
    (tmp_path / "elsewhere").mkdir()
    site.mkdir()
    (site / "link").symlink_to(tmp_path / "elsewhere")
    shownotes = {
        "enabled": True,
        "source": {"type": "local_jekyll", "path_or_url": str(site), "talks_subdir": subdir},
    }
    db = qb.write_db(tmp_path / "vault", qb.database([], shownotes=shownotes))
    before = snapshot_file(db)
    result = run_cli("rvault-db", "scan-shownotes", db, *_bound(db, ("--apply",)))
    assert result.returncode == 2
    assert result.json["ok"] is False and result.json["error"]["code"] == code
    assert snapshot_file(db) == before


def _laughs() -> str:
    """A YAML "billion laughs" frontmatter: nine levels of nine aliases each."""
    text = '---\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    previous = "a"
    for name in "bcdefghi":
        text += f"{name}: &{name} [" + ",".join(["*" + previous] * 9) + "]\n"
        previous = name
    return text + "title: x\n---\n"


def test_hostile_frontmatter_is_malformed_not_a_crash_or_a_hang(
    tmp_path: Path, snapshot_tree, snapshot_file
) -> None:
    """Alias bombs and deep nesting used to hang (exponential copy) or raise RecursionError."""
    db, d = _site(tmp_path, [])
    deep = 5000
    _page(d, "2024-01-01-bomb.md", _laughs())
    _page(d, "2024-01-02-yaml.md", "---\ntitle: " + "[" * 300 + "]" * 300 + "\n---\n")
    _page(d, "2024-01-03-toml.md", "+++\ntitle = " + "[" * deep + "]" * deep + "\n+++\n")
    _page(d, "2024-01-04-json.md", '{"title": ' + "[" * deep + "]" * deep + "}\n")
    _page(d, "2024-01-05-ok.md", "---\ntitle: Fine\nconference: C\ndate: 2024-01-05\n---\n")
    before = (snapshot_tree(d), snapshot_file(db))
    code, report = _scan(db)
    assert code == 0, report
    assert schema_issues("shownotes-scan-report", 3, report) == []
    entries = _entries(report)
    for name in ("2024-01-01-bomb.md", "2024-01-02-yaml.md", "2024-01-03-toml.md"):
        assert [i["code"] for i in entries[name]["issues"]] == ["frontmatter_malformed"], name
    assert [i["code"] for i in entries["2024-01-04-json.md"]["issues"]] == ["frontmatter_malformed"]
    assert entries["2024-01-05-ok.md"]["disposition"] == "add"
    assert (snapshot_tree(d), snapshot_file(db)) == before


def test_hostile_lines_and_oversized_pages_stay_linear_and_bounded(
    tmp_path: Path, snapshot_tree, snapshot_file
) -> None:
    """50 kB lines that made the H1/label/link patterns backtrack quadratically (tens of
    seconds per page), and a page over the size cap, which is reported instead of read."""
    from rvault_tracking_db.shownotes.scan import MAX_PAGE_BYTES

    db, d = _site(tmp_path, [])
    n = 50_000
    _page(d, "2024-02-01-h1.md", "# a" + " " * n + "b\n")
    _page(d, "2024-02-02-label.md", "Conference: a" + " " * n + "b\n")
    _page(d, "2024-02-03-link.md", "Video: " + "[" * n + "\n")
    _page(d, "2024-02-04-paren.md", "Video: " + "[x](a" * n + "\n")
    _page(d, "2024-02-05-angle.md", "Video: " + "<http://a" * n + "\n")
    _page(d, "2024-02-06-title.md", "Video: [x](u" + " " * n + "z\n")
    _page(d, "2024-02-07-big.md", "# Big\n" + "x" * MAX_PAGE_BYTES)
    _page(
        d,
        "2024-02-08-ok.md",
        "# Fine Talk ##\n\n- **Conference:** DevConf  \n"
        '**Video:** [watch](https://youtu.be/dQw4w9WgXcQ "T")\n',
    )
    before = (snapshot_tree(d), snapshot_file(db))
    code, report = _scan(db)
    assert code == 0, report
    assert schema_issues("shownotes-scan-report", 3, report) == []
    entries = _entries(report)
    assert entries["2024-02-01-h1.md"]["proposal"]["title"] == "a" + " " * n + "b"
    assert entries["2024-02-02-label.md"]["proposal"]["conference"] == "a" + " " * n + "b"
    assert "video_url" not in entries["2024-02-03-link.md"]["proposal"]
    assert [i["code"] for i in entries["2024-02-07-big.md"]["issues"]] == ["unreadable_page"]
    ok = entries["2024-02-08-ok.md"]["proposal"]
    assert ok["title"] == "Fine Talk" and ok["conference"] == "DevConf"
    assert ok["video_url"] == "https://youtu.be/dQw4w9WgXcQ"
    assert (snapshot_tree(d), snapshot_file(db)) == before


def test_non_utf8_page_and_directory_names_are_skipped_with_a_warning(
    tmp_path: Path, snapshot_file
) -> None:
    """Such names used to end the scan in an internal error when the report was encoded."""
    import os

    db, d = _site(tmp_path, [])
    page = "---\ntitle: X\nconference: C\ndate: 2024-01-01\n---\n"
    _page(d, os.fsdecode(b"2024-01-01-caf\xe9.md"), page)
    _page(d, os.fsdecode(b"dir\xff") + "/index.md", "# T\n")
    _page(d, "2024-01-02-ok.md", page.replace("X", "Y"))
    before = snapshot_file(db)
    code, report = _scan(db)
    assert code == 0, report
    assert schema_issues("shownotes-scan-report", 3, report) == []
    assert sorted(report["warnings"]) == [
        "non-UTF-8 name skipped: 2024-01-01-caf\\xe9.md",
        "non-UTF-8 name skipped: dir\\xff",
    ]
    assert [e["filename"] for e in report["entries"]] == ["2024-01-02-ok.md"]
    assert snapshot_file(db) == before


@pytest.mark.parametrize("where", ["shownotes", "talks_source_dir"])
def test_a_nul_byte_in_the_shownotes_root_is_refused(
    tmp_path: Path, snapshot_file, where: str
) -> None:
    """It used to reach ``stat`` and end in an internal ValueError."""
    root = str(tmp_path) + "/site\x00x"
    extra: dict[str, Any] = (
        {"shownotes": {"enabled": True, "source": {"type": "local_jekyll", "path_or_url": root}}}
        if where == "shownotes"
        else {"talks_source_dir": root}
    )
    db = qb.write_db(tmp_path / "vault", qb.database([], **extra))
    before = snapshot_file(db)
    code, report = _scan(db)
    assert code == 2 and report["error"]["code"] == "shownotes_root_invalid", report
    assert snapshot_file(db) == before


@pytest.mark.parametrize("where", ["shownotes", "talks_source_dir"])
@pytest.mark.parametrize("segment", [".", ".."])
def test_dot_segments_in_the_shownotes_root_are_refused(
    tmp_path: Path, snapshot_file, snapshot_tree, where: str, segment: str
) -> None:
    """``Path(...).parts`` drops ``.`` components, so ``/site/./_talks`` used to be scanned."""
    site = tmp_path / "site"
    (site / "_talks").mkdir(parents=True)
    _page(
        site / "_talks", "2024-01-01-x.md", "---\ntitle: X\nconference: C\ndate: 2024-01-01\n---\n"
    )
    root = f"{site}/{segment}/site" if segment == ".." else f"{site}/{segment}"
    extra: dict[str, Any] = (
        {"shownotes": {"enabled": True, "source": {"type": "local_jekyll", "path_or_url": root}}}
        if where == "shownotes"
        else {"talks_source_dir": f"{root}/_talks"}
    )
    db = qb.write_db(tmp_path / "vault", qb.database([], **extra))
    before = (snapshot_tree(site), snapshot_file(db))
    code, report = _scan(db, "--apply")
    assert code == 2, report
    assert report["error"]["code"] == "shownotes_root_invalid", report
    assert report["error"]["message"] == "the shownotes root has dot segments", report
    path = (
        '$["config"]["shownotes"]["source"]["path_or_url"]'
        if where == "shownotes"
        else '$["config"]["talks_source_dir"]'
    )
    assert report["error"]["path"] == path, report
    assert (snapshot_tree(site), snapshot_file(db)) == before
    # only the writer's persistent lock file may appear beside the database
    assert {p.name for p in db.parent.iterdir()} <= {db.name, db.name + ".lock"}
