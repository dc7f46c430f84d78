"""Each package README's refusal and issue codes are generated from the source and kept in sync."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import refusal_codes

PACKAGES = [p.name for p in refusal_codes.packages()]

# A few codes per package, each raised through a different emitter shape.
KNOWN = {
    "analysis-writer": {
        "target_collision": "refusal",  # _refuse(...) wrapper of Refusal
        "vault_root_invalid": "refusal",  # Refusal(...)
        "ledger_schema_violation": "issue",  # {"code": ...} dict
    },
    "archive-batch": {
        "database_changed": "refusal",  # Refusal(...) at the batch's one registration
        "scheduler_unreachable": "refusal",
    },
    "pptx-evidence": {
        "unsafe_member_name": "refusal",  # Refusal(refusals.UNSAFE_MEMBER_NAME, ...)
        "worker_timeout": "refusal",  # a constant table's value
        "pptx_batch_entry_limit": "issue",  # _Scan.skip(path, reason)
    },
    "returns-persistence": {
        "queue_generation_mismatch": "issue",  # ctx.add(code, path, message) -> Collector.add
        "not_evaluable_missing": "issue",
        "translation_required": "issue",
        "database_unreadable": "refusal",  # mapped, message = "...", ... (tuple assignment)
    },
    "tracking-db": {
        "database_missing": "refusal",  # DATABASE_MISSING constant
        "expectation_failed": "refusal",  # PlanRefusal / Refusal
    },
    "transcript": {
        "empty_text": "error",  # TextRefusal(code, message)
        "invalid_video_id": "refusal",
    },
    "video-extraction": {
        "path_missing": "issue",  # a function's returned list, fed to Collector.add
        "path_contains_nul": "issue",  # appended to a returned local list
        "invalid_fps": "error",  # VideoExtractionError(code, ...)
    },
}


@pytest.mark.parametrize("package", PACKAGES)
def test_readme_block_matches_the_source(package: str) -> None:
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


def test_every_package_is_known() -> None:
    assert sorted(KNOWN) == PACKAGES


@pytest.mark.parametrize("package", PACKAGES)
def test_known_codes_are_found_with_their_kind(package: str) -> None:
    table = refusal_codes.codes(package)
    for code, kind in KNOWN[package].items():
        assert code in table, f"{package}: {code} not extracted"
        assert kind in table[code][1], f"{package}: {code} is {table[code][1]}, not {kind}"
    rows = refusal_codes.table(package).splitlines()
    assert any(row.startswith(f"| `{next(iter(KNOWN[package]))}` |") for row in rows)


def test_shared_codes_come_from_the_contracts() -> None:
    shared = refusal_codes.shared_codes()
    assert {"usage_error", "internal_error", "duplicate_key", "lock_unavailable"} <= set(shared)
    # StagedCandidateConflictError's first argument is an invariant, not a code.
    assert "staged_candidate_conflict" in shared and "staged_bytes" not in shared


def _extract(tmp_path: Path, source: str) -> dict[str, tuple[set[str], set[str], bool]]:
    package = tmp_path / "src/rvault_demo"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "rules.py").write_text(textwrap.dedent(source), encoding="utf-8")
    ast.parse((package / "rules.py").read_text(encoding="utf-8"))
    return refusal_codes._collect(refusal_codes.extract(tmp_path / "src").sites)


def test_dynamic_codes_are_patterns_not_dropped(tmp_path: Path) -> None:
    found = _extract(
        tmp_path,
        """
        from rvault_contracts.cli import Refusal

        PREFIX = "database_"

        def read(exc, strict):
            if strict:
                raise Refusal(f"database_{exc.code}", "bad")
            raise Refusal(PREFIX + exc.code, "bad")
        """,
    )
    assert found["database_<exc.code>"] == ({"rules"}, {"refusal"}, True)


def test_wrappers_subclasses_and_collectors_are_followed(tmp_path: Path) -> None:
    found = _extract(
        tmp_path,
        """
        from dataclasses import dataclass
        from rvault_contracts.cli import Refusal

        class OwnRefusal(Refusal):
            pass

        @dataclass
        class Note:
            path: str
            code: str

        class Notes:
            def __init__(self):
                self.items = []

            def add(self, path, code):
                self.items.append(Note(path, code))

        def _refuse(code, message, hint):
            return OwnRefusal(code, message, None, hint=hint)

        def check(notes, seen):
            seen.add("not_a_code")
            notes.add("$", "note_code")
            raise _refuse("wrapped_code" if notes else "other_code", "m", "h")
        """,
    )
    assert found["note_code"][1] == {"issue"}
    assert found["wrapped_code"][1] == found["other_code"][1] == {"refusal"}
    assert "not_a_code" not in found  # set.add has one argument, Notes.add two


def test_forwarded_codes_are_reported_unresolved(tmp_path: Path) -> None:
    package = tmp_path / "src/rvault_demo"
    package.mkdir(parents=True)
    (package / "cmd.py").write_text(
        "from rvault_contracts.cli import Refusal\n\n"
        "def run(exc):\n"
        "    raise Refusal(exc.code, 'forwarded')\n",
        encoding="utf-8",
    )
    extraction = refusal_codes.extract(tmp_path / "src")
    assert extraction.sites == []
    assert [line.rsplit(": ", 1)[1] for line in extraction.unresolved] == ["exc.code"]


def test_write_adds_the_section_once(tmp_path: Path) -> None:
    text = "# pkg\n\nHand-written prose.\n"
    once = refusal_codes.render_readme(text, "transcript", ["usage_error"])
    assert once.startswith(text.rstrip())
    assert once.count(refusal_codes.HEADING) == 1
    assert refusal_codes.render_readme(once, "transcript", ["usage_error"]) == once
