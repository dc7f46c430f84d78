"""video-manifest v3: what tracking-db and returns-persistence refuse.

One verified-region extraction by the installed ``rvault-video extract`` is
produced per module. Neither consumer has a console script that reads a
manifest and reports codes (``rvault-db status`` prints only status and
trust), so each case goes through the public reader exactly as the consumer
calls it: tracking-db's status reads the stored file with
``api.read_manifest(path, vault_root=, expected_video_id=)``,
returns-persistence assesses the manifest of a return with
``api.validate_manifest(manifest, vault_root=, probe_pdfs=True)``. The
declared code must be among the report's issue codes and the manifest must
lose its trust.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _refusals import RefusalCase, assert_refused, mutated, refusal_cases, replaced
from _video_producer import VIDEO_ID, extract
from rvault_contracts.schemas import schema_issues
from rvault_video_extraction import api

COVERS = [
    ("video-manifest", "video-extraction", "tracking-db"),
    ("video-manifest", "video-extraction", "returns-persistence"),
]
REFUSALS = {
    ("video-manifest", "video-extraction", "tracking-db"): [
        ("frame_count_inconsistent", ["total_frames_extracted"], 1),
        ("video_id_mismatch", ["source_video_id"], "ZyXwVuTsR_2"),
    ],
    ("video-manifest", "video-extraction", "returns-persistence"): [
        ("frame_count_inconsistent", ["total_frames_extracted"], 1),
        ("review_inconsistent", ["review_required"], True),
    ],
}


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """(vault root, stored manifest file, manifest) of one verified-region extraction."""
    root, manifest = extract(
        tmp_path_factory.mktemp("video"), "--region", "0.03,0.12,0.66,0.88", "--region-verified"
    )
    path = root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.video-extraction.json"
    return root, path, manifest


def _report(consumer: str, root: Path, path: Path, manifest: dict[str, Any]) -> Any:
    if consumer == "tracking-db":
        return api.read_manifest(path, vault_root=root, expected_video_id=VIDEO_ID)
    return api.validate_manifest(manifest, vault_root=root, probe_pdfs=True)


@pytest.mark.parametrize("consumer", ["tracking-db", "returns-persistence"])
def test_produced_manifest_is_trusted_by_both_readers(
    produced: tuple[Path, Path, dict[str, Any]], consumer: str
) -> None:
    root, path, manifest = produced
    assert schema_issues("video-manifest", 3, manifest) == []
    report = _report(consumer, root, path, manifest)
    assert (report.status, report.trusted, list(report.codes)) == ("current", True, [])


@pytest.mark.parametrize("case", refusal_cases(REFUSALS))
def test_consumer_refuses_one_invalid_field(
    produced: tuple[Path, Path, dict[str, Any]], case: RefusalCase
) -> None:
    root, path, manifest = produced
    changed = mutated(manifest, case)
    with replaced(path, changed):
        report = _report(case.consumer, root, path, changed)
    assert not report.trusted
    assert json.loads(path.read_bytes()) == manifest
    assert_refused(case, report.codes)
