"""A release touches one package only; unreleased changes must be written down."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import release

ROOT = Path(__file__).resolve().parents[2]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def make_package(root: Path, directory: str, module: str, changelog: str) -> None:
    base = root / directory
    (base / "src" / module).mkdir(parents=True)
    (base / "src" / module / "__about__.py").write_text('__version__ = "0.1.0"\n')
    (base / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (base / "CHANGELOG.md").write_text(changelog)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    make_package(
        tmp_path, "contracts", "rvault_contracts", "# C\n\n## 0.1.0 (unreleased)\n- First.\n"
    )
    make_package(
        tmp_path,
        "packages/alpha",
        "rvault_alpha",
        "# A\n\n## Unreleased\n### Added\n- The alpha tool.\n",
    )
    make_package(tmp_path, "packages/beta", "rvault_beta", "# B\n\n## Unreleased\n- Beta.\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "init")
    return tmp_path


def tree_state(repo: Path) -> dict[str, bytes]:
    return {
        path.relative_to(repo).as_posix(): path.read_bytes()
        for path in sorted(repo.rglob("*"))
        if path.is_file() and ".git" not in path.parts
    }


def test_prepare_changes_exactly_two_files_of_one_package(repo: Path) -> None:
    before = tree_state(repo)
    plan = release.prepare("alpha", "minor", root=repo, dry_run=False, date="2026-12-01")
    after = tree_state(repo)
    changed = sorted(name for name in after if after[name] != before[name])
    assert changed == [
        "packages/alpha/CHANGELOG.md",
        "packages/alpha/src/rvault_alpha/__about__.py",
    ]
    assert plan["files"] == [
        "packages/alpha/src/rvault_alpha/__about__.py",
        "packages/alpha/CHANGELOG.md",
    ]
    assert plan["tag"] == "alpha-v0.2.0"
    assert after["packages/alpha/src/rvault_alpha/__about__.py"] == b'__version__ = "0.2.0"\n'
    assert after["packages/alpha/CHANGELOG.md"].decode() == (
        "# A\n\n## Unreleased\n\n## 0.2.0 (2026-12-01)\n### Added\n- The alpha tool.\n"
    )


def test_dry_run_writes_nothing(repo: Path) -> None:
    before = tree_state(repo)
    plan = release.prepare("beta", "major", root=repo, dry_run=True, date="2026-12-01")
    assert tree_state(repo) == before
    assert (plan["version"], plan["written"]) == ("1.0.0", False)


def test_first_release_of_the_old_heading_keeps_the_version(repo: Path) -> None:
    plan = release.prepare("contracts", "current", root=repo, dry_run=False, date="2026-12-01")
    assert plan["tag"] == "contracts-v0.1.0"
    text = (repo / "contracts/CHANGELOG.md").read_text()
    assert text == "# C\n\n## Unreleased\n\n## 0.1.0 (2026-12-01)\n- First.\n"


def test_releasing_twice_needs_new_notes_and_a_new_version(repo: Path) -> None:
    release.prepare("beta", "patch", root=repo, dry_run=False, date="2026-12-01")
    git(repo, "commit", "-q", "-am", "Release beta-v0.1.1")
    git(repo, "tag", "-a", "beta-v0.1.1", "-m", "beta-v0.1.1")
    with pytest.raises(release.ReleaseError) as empty:
        release.prepare("beta", "patch", root=repo, dry_run=True, date="2026-12-02")
    assert empty.value.code == "changelog_empty"
    (repo / "packages/beta/src/rvault_beta/__about__.py").write_text('__version__ = "0.1.0"\n')
    with pytest.raises(release.ReleaseError) as tagged:
        release.prepare("beta", "patch", root=repo, dry_run=True, date="2026-12-02")
    assert tagged.value.code == "tag_exists"


def test_check_fails_for_a_change_after_the_tag_without_notes(repo: Path) -> None:
    release.prepare("beta", "patch", root=repo, dry_run=False, date="2026-12-01")
    git(repo, "commit", "-q", "-am", "Release beta-v0.1.1")
    git(repo, "tag", "-a", "beta-v0.1.1", "-m", "beta-v0.1.1")
    assert release.check(["beta"], root=repo)["ok"] is True

    (repo / "packages/beta/src/rvault_beta/code.py").write_text("X = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "beta: change")
    report = release.check(["beta"], root=repo)
    assert report["ok"] is False
    assert report["packages"] == [
        {
            "owner": "beta",
            "last_tag": "beta-v0.1.1",
            "changed": True,
            "documented": False,
            "ok": False,
        }
    ]

    changelog = repo / "packages/beta/CHANGELOG.md"
    changelog.write_text(
        changelog.read_text().replace("## Unreleased\n", "## Unreleased\n- Code.\n")
    )
    assert release.check(["beta"], root=repo)["ok"] is True


def test_unknown_owner_and_missing_section_are_refused(repo: Path) -> None:
    with pytest.raises(release.ReleaseError) as unknown:
        release.prepare("gamma", "patch", root=repo, dry_run=True, date="2026-12-01")
    assert unknown.value.code == "owner_unknown"
    (repo / "packages/alpha/CHANGELOG.md").write_text("# A\n\n## 0.1.0 (2026-01-01)\n- Old.\n")
    with pytest.raises(release.ReleaseError) as missing:
        release.prepare("alpha", "patch", root=repo, dry_run=True, date="2026-12-01")
    assert missing.value.code == "changelog_unreleased_missing"


def test_cli_dry_run_on_this_repository_touches_nothing() -> None:
    """The real tree: a dry-run release of one package plans only that package's files."""
    package = ROOT / "packages/video-extraction"
    before = {path: path.read_bytes() for path in package.rglob("*") if path.is_file()}
    done = subprocess.run(
        [sys.executable, "tools/release.py", "prepare", "video-extraction", "patch", "--dry-run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    plan = json.loads(done.stdout)
    assert all(path.startswith("packages/video-extraction/") for path in plan["files"])
    assert plan["tag"].startswith("video-extraction-v")
    assert {path: path.read_bytes() for path in package.rglob("*") if path.is_file()} == before


def test_cli_refusal_exits_2_with_a_code() -> None:
    done = subprocess.run(
        [sys.executable, "tools/release.py", "prepare", "nope", "patch", "--dry-run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["code"] == "owner_unknown"


def test_every_package_of_this_repository_documents_its_unreleased_changes() -> None:
    report = release.check(None, root=ROOT)
    assert report["ok"], [row for row in report["packages"] if not row["ok"]]
    assert {row["owner"] for row in report["packages"]} == set(release.packages(ROOT))


def test_edges_are_the_conformance_modules_naming_the_owner() -> None:
    modules = release.conformance_edges("video-extraction", root=ROOT)
    assert "conformance/test_video_manifest_tracking_db.py" in modules
    assert "conformance/test_pptx_extraction_tracking_db.py" not in modules
    for module in modules:
        assert "video-extraction" in (ROOT / module).read_text()
