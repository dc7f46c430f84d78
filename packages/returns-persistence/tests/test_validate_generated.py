"""Hypothesis-generated valid v5 returns must pass the gate.

The strategy varies what a worker legitimately varies: which observable
entries it detects (from sources whose gate they satisfy, at any permitted
confidence), applicability results, how inspection ranges are split, the
slide ledger, verbatim lanes and catalog feedback. Everything it draws is
valid by construction, so any error is a false rejection.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import returns_testdata as td
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rvault_returns_persistence.database import Database, load_database
from rvault_returns_persistence.gates import source_satisfies
from rvault_returns_persistence.validator import validate_batch

CAT = td.CATALOG
DETECTABLE = sorted(
    e.id
    for e in CAT.observable()
    if not e.pending_owner_review
    and td.pick_source(
        e.evaluable_from, e.evidence_channels, {"transcript", "static_slides", "native_deck"}
    )
)
CONDITIONAL = sorted(e.id for e in CAT.observable() if e.conditional and not e.pending_owner_review)


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Database, dict[str, Any]]:
    root = tmp_path_factory.mktemp("generated")
    db_path, talks = td.standard_vault(root, lines=240, pages=12)
    return root, load_database(db_path), talks[0]


def split_ranges(total: int, cuts: list[int]) -> list[list[int]]:
    points = sorted({c for c in cuts if 1 < c <= total})
    ranges, start = [], 1
    for point in points:
        ranges.append([start, point - 1])
        start = point
    ranges.append([start, total])
    return ranges


ledger_rows = st.lists(
    st.fixed_dictionaries(
        {
            "background_color_name": st.sampled_from(
                ["purple_halftone", "white", "red_halftone", "teal"]
            ),
            "content_type": st.sampled_from(
                ["title", "meme_only", "meme_with_text", "quote", "cta", "thanks"]
            ),
            "image_composition": st.sampled_from(
                ["full_bleed", "none", "screenshot", "inset_image"]
            ),
            "has_speech_bubble": st.booleans(),
            "has_starburst": st.booleans(),
            "has_footer": st.booleans(),
        }
    ),
    min_size=1,
    max_size=12,
)
text = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=30).filter(lambda s: s.strip())


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    detected=st.lists(st.sampled_from(DETECTABLE), unique=True, max_size=8),
    applicable=st.sets(st.sampled_from(CONDITIONAL)),
    confidence=st.sampled_from(["strong", "moderate", "weak"]),
    cuts=st.lists(st.integers(min_value=2, max_value=240), max_size=4),
    rows=st.one_of(st.none(), ledger_rows),
    lanes=st.dictionaries(
        st.sampled_from(["jokes", "transitions", "opening_lines"]), st.lists(text, max_size=3)
    ),
    feedback=st.lists(text, max_size=2),
)
def test_generated_valid_returns_pass(
    vault: Any,
    detected: list[str],
    applicable: set[str],
    confidence: str,
    cuts: list[int],
    rows: list[dict[str, Any]] | None,
    lanes: dict[str, list[str]],
    feedback: list[str],
) -> None:
    root, db, talk = vault
    patterns = tuple(p for p in detected if CAT.entries[p].type == "pattern")
    antipatterns = tuple(p for p in detected if CAT.entries[p].type == "antipattern")
    ret = td.complete_return(
        talk, root, detect=patterns, antidetect=antipatterns, applicable=frozenset(applicable)
    )
    ret = copy.deepcopy(ret)
    po = ret["pattern_observations"]
    inspected = set(po["evidence_sources"])
    for lane in ("patterns_detected", "antipatterns_detected"):
        for record in po[lane]:
            entry = CAT.entries[record["pattern_id"]]
            strong_ok = source_satisfies(
                entry.strong_evaluable_from, record["evidence_source"], inspected
            )
            record["confidence"] = confidence if confidence != "strong" or strong_ok else "moderate"
    po["source_inspection"][0]["line_ranges"] = split_ranges(240, cuts)
    if rows is not None:
        ledger = [{"slide_number": i + 1, **row} for i, row in enumerate(rows)]
        ret["structured_data"].update(
            slide_count=len(ledger),
            per_slide_visual=ledger,
            background_color_sequence=[r["background_color_name"] for r in ledger],
            meme_count=sum(r["content_type"] in ("meme_only", "meme_with_text") for r in ledger),
        )
    ret["verbatim_examples"] = lanes
    ret["catalog_feedback"]["scoring_problems"] = [{"issue": t, "detail": t} for t in feedback]
    ret["catalog_feedback"]["unmatched_observations"] = [
        {
            "observation": t,
            "why_no_pattern_fits": t,
            "proposed_name": f"proposed-{i}",
            "proposed_polarity": "pattern",
        }
        for i, t in enumerate(feedback)
    ]
    report = validate_batch([ret], db=db, catalog=CAT, vault_root=root, catalog_label="default")
    assert report["ok"] is True, report["returns"][0]["errors"]
    assert report["returns"][0]["pattern_scoring_generation"] == {
        "status": "current",
        "reasons": [],
    }
