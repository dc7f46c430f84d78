"""Each package declares the codes it emits, and its README table is rendered from them.

The declarations are ``rvault_<owner>.codes.CODES`` (``rvault_contracts.codes.SHARED``
for the codes every tool shares). Two simple checks keep them honest against the
source (``tools/emitted_codes.py``): a code literal the source passes where a code
goes must be declared, and a declared code must appear in the source.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from rvault_contracts.codes import ISSUE, SHARED, declare, error, issue, refusal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import emitted_codes
import refusal_codes

PACKAGES = [p.name for p in refusal_codes.packages()]


def _source(package: str) -> Path:
    return refusal_codes.PACKAGES_DIR / package / "src"


@pytest.mark.parametrize("package", PACKAGES)
def test_readme_block_matches_the_declarations(package: str) -> None:
    readme = refusal_codes.PACKAGES_DIR / package / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert refusal_codes.START in text and refusal_codes.END in text, (
        f"{package}/README.md has no refusal-codes block: "
        "run .venv/bin/python tools/refusal_codes.py --write"
    )
    assert refusal_codes.render_readme(text, package) == text, (
        f"{package}/README.md refusal codes are stale: "
        "run .venv/bin/python tools/refusal_codes.py --write"
    )


@pytest.mark.parametrize("package", PACKAGES)
def test_every_emitted_code_is_declared(package: str) -> None:
    known = set(refusal_codes.declared(package)) | set(SHARED)
    undeclared = sorted(
        f"{site.code} ({site.path.relative_to(refusal_codes.ROOT)}:{site.line})"
        for site in emitted_codes.sites(_source(package))
        if site.code not in known
    )
    assert not undeclared, (
        f"{package}: codes emitted but not declared in {refusal_codes.import_name(package)}"
        f".codes (declare each with its hint): {undeclared}"
    )


@pytest.mark.parametrize("package", PACKAGES)
def test_every_declared_code_is_emitted(package: str) -> None:
    """A declaration nothing emits is a renamed or removed code left behind."""
    used = emitted_codes.literals(_source(package)) | set(SHARED)
    stale = sorted(
        name
        for name, code in refusal_codes.declared(package).items()
        if code.pattern is None and name not in used
    )
    assert not stale, f"{package}: declared codes that no source file uses: {stale}"


def test_the_shared_codes_are_declared_and_used() -> None:
    source = emitted_codes.CONTRACTS_SRC
    emitted = {site.code for site in emitted_codes.sites(source)}
    assert emitted <= set(SHARED), sorted(emitted - set(SHARED))
    assert set(SHARED) <= emitted_codes.literals(source), sorted(
        set(SHARED) - emitted_codes.literals(source)
    )
    # StagedCandidateConflictError's first argument is an invariant, not a code.
    assert "staged_candidate_conflict" in SHARED and "staged_bytes" not in emitted


def test_the_tables_show_kind_and_next_action() -> None:
    rows = refusal_codes.table("transcript").splitlines()
    assert rows[0] == "| code | kind | next action |"
    assert any(
        row.startswith("| `invalid_video_id` | refusal | pass the 11-character") for row in rows
    )
    families = refusal_codes.table("returns-persistence")
    assert (
        "| `database_duplicate_key` (built as `database_<strict JSON code>`) | refusal |"
        in families
    )


def test_a_declaration_names_each_code_once() -> None:
    codes = declare(refusal("a_code", "do this", also=ISSUE), [issue(f"b_{n}") for n in "xy"])
    assert list(codes) == ["a_code", "b_x", "b_y"]
    assert codes["a_code"].kinds == ("refusal", "issue")
    assert codes.hints() == {"a_code": "do this"}
    with pytest.raises(ValueError, match="declared twice"):
        declare(error("same"), issue("same"))


def test_the_scan_finds_codes_where_codes_go(tmp_path: Path) -> None:
    source = tmp_path / "src" / "rvault_demo"
    source.mkdir(parents=True)
    (source / "rules.py").write_text(
        textwrap.dedent(
            """
            from rvault_contracts.cli import Refusal

            NOT_A_ZIP = "not_a_zip"

            class Notes:
                def add(self, code, path, message):
                    pass

            def pdf_issue(state, where):
                return state

            def check(notes, seen):
                seen.add("not_a_code")  # set.add: one argument, not Notes.add's three
                pdf_issue("changed", "$")  # no parameter named code
                notes.add("note_code", "$", "m")
                record = {"code": "dict_code", "message": "m"}
                action = {"code": "next_action", "command": "rvault-db status"}
                raise Refusal(NOT_A_ZIP, "m", None, hint="re-export it")
            """
        ),
        encoding="utf-8",
    )
    found = {site.code: site for site in emitted_codes.sites(tmp_path / "src")}
    assert set(found) == {"note_code", "dict_code", "not_a_zip"}
    assert found["not_a_zip"].hinted and not found["note_code"].hinted
    assert found["not_a_zip"].raised and not found["note_code"].raised


def test_write_adds_the_section_once() -> None:
    text = "# pkg\n\nHand-written prose.\n"
    once = refusal_codes.render_readme(text, "transcript", ["usage_error"])
    assert once.startswith(text.rstrip())
    assert once.count(refusal_codes.HEADING) == 1
    assert refusal_codes.render_readme(once, "transcript", ["usage_error"]) == once
