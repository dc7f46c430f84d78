"""Schema ``pattern`` keywords are evaluated with their ECMA-262 meaning."""

from __future__ import annotations

import re

import pytest
from rvault_contracts.schemas import ecma_to_python, is_valid

REPORT = {
    "backup_path": None,
    "database_written": True,
    "durability_state": "durable",
    "input_sha256": None,
    "output_sha256": "a" * 64,
    "path": "db.json",
    "warnings": [],
}


@pytest.mark.parametrize(
    ("pattern", "python"),
    [
        ("^[0-9a-f]{64}$", "^[0-9a-f]{64}\\Z"),
        ("^\\d{4}-\\d{2}$", "^[0-9]{4}-[0-9]{2}\\Z"),
        ("\\D", "[^0-9]"),
        ("[\\d.]+", "[0-9.]+"),
        ("a\\$", "a\\$"),  # an escaped dollar stays literal
        ("[$]x$", "[$]x\\Z"),  # so does one inside a class
        ("(/|$)", "(/|\\Z)"),
        ("\\S", "\\S"),
    ],
)
def test_translation(pattern: str, python: str) -> None:
    assert ecma_to_python(pattern) == python


def test_a_digest_with_a_trailing_newline_is_not_a_digest() -> None:
    assert is_valid("write-report", 1, REPORT)
    assert not is_valid("write-report", 1, {**REPORT, "output_sha256": "a" * 64 + "\n"})


def test_digits_are_ascii_digits() -> None:
    arabic_indic_year = "\u0662\u0660\u0662\u0666"
    assert re.search("^\\d{4}$", arabic_indic_year)  # what plain re.search would accept
    assert not re.search(ecma_to_python("^\\d{4}$"), arabic_indic_year)
    assert re.search(ecma_to_python("^\\d{4}$"), "2026")
