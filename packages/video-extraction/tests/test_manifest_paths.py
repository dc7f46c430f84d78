"""Vault path rules on the filesystem: missing, not regular, unreadable, duplicated artifacts.

Each broken PDF path is reported with its stable code at the manifest's JSON
path of that field; a path that fails the filesystem check is never probed.
The recording of a v4 manifest is re-checked through its source receipt: a
removed, non-regular or unreadable recording makes the manifest ``stale``
(``source_missing`` / ``source_unreadable`` at ``$.source_receipt``), not
invalid. The ``rvault-video validate`` command refuses such a manifest (exit
2, ``manifest_unusable`` or ``manifest_stale``, the manifest as the error
path, the issues in the report) and changes nothing in the vault.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_video_extraction.api import validate_manifest
from rvault_video_extraction.cli import main

VIDEO = "$.source_video_path"
RECEIPT = "$.source_receipt"
REGION = "$.artifacts[0].path"
CONTEXT = "$.artifacts[1].path"


def issue_pairs(report: Any) -> list[tuple[str, str]]:
    return [(issue.code, issue.path) for issue in report.issues]


def _field(manifest: dict[str, Any], where: str) -> Path:
    return Path(
        manifest["source_video_path"] if where == VIDEO else manifest["artifacts"][1]["path"]
    )


def _remove(path: Path) -> None:
    path.unlink()


def _directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


CHANGES = pytest.mark.parametrize(
    ("change", "code", "recording_code"),
    [
        (_remove, "path_missing", "source_missing"),
        (_directory, "path_not_regular_file", "source_unreadable"),
        (_fifo, "path_not_regular_file", "source_unreadable"),
    ],
    ids=["removed", "directory", "fifo"],
)


@CHANGES
def test_each_pdf_path_names_its_filesystem_problem(
    extracted: tuple[Path, dict[str, Any]],
    change: Callable[[Path], None],
    code: str,
    recording_code: str,
) -> None:
    root, manifest = extracted
    change(_field(manifest, CONTEXT))
    report = validate_manifest(manifest, vault_root=root)
    # Only the path rule: a path that failed it is not handed to the PDF probe.
    assert issue_pairs(report) == [(code, CONTEXT)], report.to_dict()
    assert not report.usable and not report.trusted
    assert report.status == "invalid"


@CHANGES
def test_a_recording_gone_or_not_regular_makes_the_manifest_stale(
    extracted: tuple[Path, dict[str, Any]],
    change: Callable[[Path], None],
    code: str,
    recording_code: str,
) -> None:
    root, manifest = extracted
    change(_field(manifest, VIDEO))
    report = validate_manifest(manifest, vault_root=root)
    assert issue_pairs(report) == [(recording_code, RECEIPT)], report.to_dict()
    assert report.status == "stale"
    assert report.usable and not report.trusted


def test_a_regular_file_as_a_parent_directory_is_path_missing(
    extracted: tuple[Path, dict[str, Any]],
) -> None:
    root, manifest = extracted
    document = copy.deepcopy(manifest)
    document["artifacts"][1]["path"] = manifest["artifacts"][0]["path"] + "/context.pdf"
    report = validate_manifest(document, vault_root=root)
    assert issue_pairs(report) == [("path_missing", CONTEXT)]


@pytest.mark.parametrize("where", [VIDEO, CONTEXT])
def test_a_path_the_os_cannot_look_up_is_path_unreadable(
    extracted: tuple[Path, dict[str, Any]], where: str
) -> None:
    """A 256-byte name component: lstat fails with ENAMETOOLONG, not FileNotFoundError."""
    root, manifest = extracted
    document = copy.deepcopy(manifest)
    too_long = str(_field(manifest, where).parent / ("n" * 256 + ".pdf"))
    if where == VIDEO:
        document["source_video_path"] = too_long
        for artifact in document["artifacts"]:
            artifact["source_video_path"] = too_long
        document["source_receipt"]["vault_path"] = str(Path(too_long).relative_to(root.resolve()))
    else:
        document["artifacts"][1]["path"] = too_long
    report = validate_manifest(document, vault_root=root)
    expected = ("source_unreadable", RECEIPT) if where == VIDEO else ("path_unreadable", where)
    assert issue_pairs(report) == [expected], report.to_dict()
    assert not report.trusted
    assert report.status == ("stale" if where == VIDEO else "invalid")


def test_two_artifacts_naming_one_file_are_refused(
    extracted: tuple[Path, dict[str, Any]],
) -> None:
    root, manifest = extracted
    document = copy.deepcopy(manifest)
    document["artifacts"][1]["path"] = manifest["artifacts"][0]["path"]
    report = validate_manifest(document, vault_root=root)
    assert ("artifact_path_duplicate", "$.artifacts") in issue_pairs(report)
    assert not report.usable and not report.trusted
    assert report.trusted_slide_region_path is None


def _validate(
    capsys: pytest.CaptureFixture[str], manifest: Path, root: Path
) -> tuple[int, dict[str, Any]]:
    code = main(["validate", str(manifest), "--vault-root", str(root)])
    return code, json.loads(capsys.readouterr().out)  # exactly one JSON document


@pytest.mark.parametrize(
    ("break_it", "expected"),
    [
        (lambda doc: Path(doc["artifacts"][1]["path"]).unlink(), ("path_missing", CONTEXT)),
        (
            lambda doc: _directory(Path(doc["source_video_path"])),
            ("source_unreadable", RECEIPT),
        ),
        (
            lambda doc: doc["artifacts"][1].__setitem__(
                "path", str(Path(doc["artifacts"][1]["path"]).parent / ("n" * 256))
            ),
            ("path_unreadable", CONTEXT),
        ),
        (
            lambda doc: doc["artifacts"][0].__setitem__("path", doc["artifacts"][1]["path"]),
            ("artifact_path_duplicate", "$.artifacts"),
        ),
    ],
    ids=["path_missing", "path_not_regular_file", "path_unreadable", "artifact_path_duplicate"],
)
def test_validate_command_refuses_and_changes_nothing(
    extracted: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    snapshot_tree: Callable,
    snapshot_file: Callable,
    break_it: Callable[[dict[str, Any]], None],
    expected: tuple[str, str],
) -> None:
    root, manifest = extracted
    document = copy.deepcopy(manifest)
    break_it(document)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(document))
    vault_before = snapshot_tree(root)
    manifest_before = snapshot_file(path)
    code, result = _validate(capsys, path, root)
    assert code == 2, result
    assert result["ok"] is False
    stale = expected[0] == "source_unreadable"
    assert result["error"]["code"] == ("manifest_stale" if stale else "manifest_unusable")
    assert result["error"]["path"] == str(path)
    assert result["report"]["status"] == ("stale" if stale else "invalid")
    assert result["report"]["usable"] is stale
    pairs = [(issue["code"], issue["path"]) for issue in result["report"]["issues"]]
    assert expected in pairs
    assert snapshot_tree(root) == vault_before
    assert snapshot_file(path) == manifest_before
