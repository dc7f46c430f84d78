"""Decks generated at test time, and their extractions, shared per session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.schemas import schema_issues
from rvault_pptx_evidence.extract import extract_path
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_pptx_evidence.versions import ARTIFACT_ID, SCHEMA_VERSION
from rvault_testkit.pptx_evidence import sample_decks


def assert_schema_valid(document: dict[str, Any]) -> None:
    issues = schema_issues(ARTIFACT_ID, SCHEMA_VERSION, document)
    assert issues == [], [issue.to_dict() for issue in issues[:5]]


@pytest.fixture(scope="session")
def deck_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("decks")


@pytest.fixture(scope="session")
def rich_deck(deck_dir: Path) -> Path:
    path = deck_dir / "rich.pptx"
    path.write_bytes(sample_decks.rich_deck())
    return path


@pytest.fixture(scope="session")
def rich_doc(rich_deck: Path) -> dict[str, Any]:
    return extract_path(rich_deck, "talks/rich.pptx", ocr_mode=OCR_DISABLED)


@pytest.fixture(scope="session")
def picture_deck(deck_dir: Path) -> Path:
    path = deck_dir / "picture.pptx"
    path.write_bytes(sample_decks.picture_deck())
    return path


@pytest.fixture
def slide_of(rich_doc: dict[str, Any]) -> Any:
    def get(number: int) -> dict[str, Any]:
        return rich_doc["per_slide_visual"][number - 1]

    return get


@pytest.fixture
def schema_valid() -> Any:
    return assert_schema_valid
