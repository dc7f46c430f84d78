"""``rvault-returns feedback``: catalog feedback aggregated across current and historical returns.

The vault under test keeps the batches it was given under ``returns/``: a
current v5 batch whose digest is the receipt persist stored on the talk's
completed claim, an older v5 revision of the same talk (receipt in the claim
history), a v4 return that carried feedback before the contract, a v3 return
from a harvest that named the lanes ``feedback``, and v1/v2 returns with no
feedback at all. Polarities come from the shipped catalog: ``ant-fonts`` is
an antipattern and ``bookends`` a pattern whatever their spelling suggests.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from returns_testdata import claim_v5, database, talk, write_json
from rvault_contracts.canonical import payload_sha256
from rvault_contracts.schemas import schema_issues
from rvault_returns_persistence.feedback.entries import normalize_name
from rvault_testkit.plugin import run_cli
from rvault_tracking_db.persist_write import complete_claim

RELEASED = "2026-08-01T09:00:00+00:00"


def lanes(**given: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    base: dict[str, list[dict[str, Any]]] = {
        "unmatched_observations": [],
        "tensions": [],
        "definition_problems": [],
        "scoring_problems": [],
        "confusable_pairs": [],
    }
    base.update(given)
    return base


def definition(pid: str, problem: str = "ambiguous") -> dict[str, Any]:
    return {"pattern_id": pid, "problem": problem, "detail": f"the boundary of {pid} is unclear"}


def proposal(name: str, polarity: str | None = "pattern") -> dict[str, Any]:
    entry = {
        "observation": "the speaker names the audience's objection before answering it",
        "why_no_pattern_fits": "no entry covers a pre-emptive rebuttal",
        "proposed_name": name,
    }
    if polarity is not None:
        entry["proposed_polarity"] = polarity
    return entry


def current(filename: str, run: str, batch: str, feedback: dict[str, Any]) -> dict[str, Any]:
    return {
        "filename": filename,
        "return_schema_version": 5,
        "queue_claim": {"run_id": run, "batch_id": batch, "reprocess_generation": 1},
        "status": "processed",
        "catalog_feedback": feedback,
    }


@pytest.fixture
def vault(tmp_path: Path) -> dict[str, Any]:
    """A vault with kept returns of every version and a database holding their receipts."""
    root = tmp_path / "vault"
    alpha_now = current(
        "alpha.md",
        "run-2",
        "b2",
        lanes(
            definition_problems=[definition("bookends")],
            confusable_pairs=[{"pattern_ids": ["bookends", "coda"], "detail": "both close"}],
            unmatched_observations=[proposal("Pre-emptive Rebuttal")],
        ),
    )
    alpha_old = current(
        "alpha.md",
        "run-1",
        "b1",
        lanes(definition_problems=[definition("bookends", "undetectable")]),
    )
    beta_now = current(
        "beta.md",
        "run-2",
        "b2",
        lanes(
            tensions=[
                {
                    "pattern_ids": ["ant-fonts", "bookends"],
                    "nature": "fonts fight the callback",
                    "evidence": "slide 3 against slide 40",
                    "catalog_polarities": {"ant-fonts": "antipattern", "bookends": "pattern"},
                }
            ],
            unmatched_observations=[proposal("pre_emptive rebuttal!")],
        ),
    )
    gamma_v4 = {
        "filename": "gamma.md",
        "return_schema_version": 4,
        "queue_claim": {"run_id": "run-0", "batch_id": "b0", "reprocess_generation": 1},
        "status": "processed",
        "catalog_feedback": {"definition_problems": [definition("bookends", "too vague to score")]},
    }
    delta_v3_harvest = {
        "returns": [
            {
                "filename": "delta.md",
                "return_schema_version": 3,
                "status": "processed",
                "feedback": {"unmatched_observations": [proposal("Pre-emptive Rebuttal", None)]},
            }
        ]
    }
    legacy = [
        {"filename": "epsilon.md", "status": "processed"},
        {"filename": "zeta.md", "return_schema_version": 2, "status": "processed"},
    ]
    write_json(root / "returns" / "run-2" / "b2.json", [alpha_now, beta_now])
    write_json(root / "returns" / "run-1" / "b1.json", {"alpha.md": alpha_old})
    write_json(root / "returns" / "run-0" / "b0.json", [gamma_v4])
    write_json(root / "returns" / "harvest" / "delta.json", delta_v3_harvest)
    write_json(root / "returns" / "legacy.json", legacy)

    def closed(ret: dict[str, Any], members: list[str]) -> dict[str, Any]:
        claim = claim_v5(members, run_id=ret["queue_claim"]["run_id"], batch_id="x")
        return complete_claim(
            claim,
            released_at=RELEASED,
            result_status="processed",
            result_payload_sha256=payload_sha256(ret),
        )

    alpha = talk("alpha.md", "AAAAAAAAAAA", status="processed")
    alpha["_queue_claim"] = closed(alpha_now, ["alpha.md", "beta.md"])
    alpha["_queue_claim_history"] = [closed(alpha_old, ["alpha.md"])]
    beta = talk("beta.md", "BBBBBBBBBBB", status="processed")
    beta["_queue_claim"] = closed(beta_now, ["alpha.md", "beta.md"])
    db = database([alpha, beta])
    write_json(root / "tracking-database.json", db)
    return {"root": root, "alpha_now": alpha_now, "beta_now": beta_now}


def run_feedback(*args: object) -> Any:
    return run_cli("rvault-returns", "feedback", *args)


def test_counts_exact_ids_and_suggestions_with_provenance(vault: dict[str, Any]) -> None:
    result = run_feedback("--vault", vault["root"])
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("catalog-feedback-report", 1, report) == []
    assert report["ok"] is True and report["read_only"] is True
    assert report["summary"]["inputs"] == {"accepted": 4, "invalid": 0, "rejected": 1}
    assert report["summary"]["returns"] == {"accepted": 5, "invalid": 0, "rejected": 2}

    bookends = next(r for r in report["exact_catalog_ids"] if r["pattern_id"] == "bookends")
    # alpha now + alpha old + gamma v4 (definition), alpha now (pair), beta now (tension)
    assert bookends["polarity"] == "pattern"
    assert bookends["occurrences"] == 5
    assert bookends["talk_count"] == 3
    assert bookends["return_count"] == 4
    assert bookends["by_lane"] == {"confusable_pairs": 1, "definition_problems": 3, "tensions": 1}
    fonts = next(r for r in report["exact_catalog_ids"] if r["pattern_id"] == "ant-fonts")
    assert fonts["polarity"] == "antipattern"

    # Vault-relative sources, the run and batch of the return, and its receipt binding.
    receipts = {(p["source"], p["run_id"]): p["receipt"] for p in bookends["provenance"]}
    assert receipts == {
        ("returns/run-2/b2.json", "run-2"): "current",
        ("returns/run-1/b1.json", "run-1"): "historical",
        ("returns/run-0/b0.json", "run-0"): "unbound",
    }
    now = next(
        p for p in bookends["provenance"] if p["run_id"] == "run-2" and p["lane"] == "tensions"
    )
    assert now["talk_filename"] == "beta.md" and now["entry_index"] == 0
    assert now["return_sha256"] == payload_sha256(vault["beta_now"])

    [suggestion] = report["suggestions"]
    assert suggestion["name"] == "pre-emptive-rebuttal"
    assert suggestion["variants"] == ["Pre-emptive Rebuttal", "pre_emptive rebuttal!"]
    assert suggestion["polarity"] == "pattern"  # the harvest's unspecified one does not conflict
    assert (suggestion["occurrences"], suggestion["talk_count"]) == (3, 3)


def test_legacy_shapes_are_reported_never_repaired(vault: dict[str, Any]) -> None:
    root = vault["root"]
    before = {p: p.read_bytes() for p in root.rglob("*.json")}
    report = run_feedback("--vault", root).json
    codes = {(w["code"], w["path"].split("#")[0]) for w in report["warnings"]}
    assert ("feedback_before_contract", "returns/run-0/b0.json") in codes
    assert ("feedback_problem_unclassified", "returns/run-0/b0.json") in codes
    assert ("feedback_legacy_key", "returns/harvest/delta.json") in codes
    assert ("feedback_polarity_unspecified", "returns/harvest/delta.json") in codes
    rejected = {r["filename"]: r["code"] for r in report["returns"] if r["status"] == "rejected"}
    assert rejected == {
        "epsilon.md": "return_without_feedback",
        "zeta.md": "return_without_feedback",
    }
    assert {p: p.read_bytes() for p in root.rglob("*.json")} == before


def test_a_directory_and_a_file_inside_it_count_once(vault: dict[str, Any]) -> None:
    root = vault["root"]
    both = run_feedback(root / "returns", root / "returns" / "run-2" / "b2.json").json
    once = run_feedback(root / "returns").json
    assert both["exact_catalog_ids"] == once["exact_catalog_ids"]
    assert [i["source"] for i in once["inputs"]] == sorted(i["source"] for i in once["inputs"])
    assert all(not i["source"].startswith("/") for i in once["inputs"])
    assert once["receipts_checked"] is False
    assert {p["receipt"] for r in once["exact_catalog_ids"] for p in r["provenance"]} == {None}


def test_invalid_entries_fail_the_report_but_valid_ones_still_count(tmp_path: Path) -> None:
    bad = current(
        "alpha.md",
        "r",
        "b",
        lanes(
            definition_problems=[definition("bookend"), definition("coda")],
            tensions=[
                {
                    "pattern_ids": ["ant-fonts", "coda"],
                    "nature": "n",
                    "evidence": "e",
                    "catalog_polarities": {"ant-fonts": "pattern", "coda": "pattern"},
                }
            ],
            unmatched_observations=[proposal("Bookends")],
            confusable_pairs=[{"pattern_ids": ["coda", "coda"], "detail": "d"}],
        ),
    )
    conflict = current("beta.md", "r", "b", lanes(unmatched_observations=[proposal("Fresh Move")]))
    other = current(
        "gamma.md", "r", "b", lanes(unmatched_observations=[proposal("fresh_move", "antipattern")])
    )
    path = write_json(tmp_path / "batch.json", [bad, conflict, other])
    result = run_feedback(path)
    assert result.returncode == 2
    report = result.json
    assert schema_issues("catalog-feedback-report", 1, report) == []
    assert report["ok"] is False and report["error"]["code"] == "catalog_feedback_invalid"
    assert report["hint"]
    errors = {(e["code"], e["path"].partition("#")[2]) for e in report["errors"]}
    lanes_path = '$[0]["catalog_feedback"]'
    assert (
        "feedback_unknown_pattern",
        f'{lanes_path}["definition_problems"][0]["pattern_id"]',
    ) in errors
    unknown = next(e for e in report["errors"] if e["code"] == "feedback_unknown_pattern")
    assert "closest: bookends" in unknown["message"]
    assert (
        "feedback_polarity_mismatch",
        f'{lanes_path}["tensions"][0]["catalog_polarities"]["ant-fonts"]',
    ) in errors
    assert (
        "feedback_proposed_name_collides",
        f'{lanes_path}["unmatched_observations"][0]["proposed_name"]',
    ) in errors
    assert ("feedback_entry_shape", f'{lanes_path}["confusable_pairs"][0]["pattern_ids"]') in errors
    conflict_row = report["suggestions"].index(
        next(s for s in report["suggestions"] if s["name"] == "fresh-move")
    )
    assert ("suggestion_polarity_conflict", "") in errors  # a finding about the report's group
    assert {
        "code": "suggestion_polarity_conflict",
        "path": f'$["suggestions"][{conflict_row}]',
    } in [{k: e[k] for k in ("code", "path")} for e in report["errors"]]
    # The valid definition of coda still counts; the input is invalid, nothing is dropped silently.
    coda = next(r for r in report["exact_catalog_ids"] if r["pattern_id"] == "coda")
    assert coda["by_lane"] == {"definition_problems": 1}
    assert report["inputs"][0]["status"] == "invalid"
    assert [e["accepted"] for e in report["entries"]].count(False) == 4


def test_unreadable_and_non_return_files_are_classified(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_bytes(b'{"filename": "a.md", "filename": "b.md"}')
    write_json(tmp_path / "notes.json", {"hello": "world"})
    (tmp_path / "empty").mkdir()
    write_json(tmp_path / "nameless.json", [{"status": "processed", "catalog_feedback": {}}])
    named = ("broken.json", "notes.json", "empty", "nameless.json")
    report = run_feedback(*(tmp_path / name for name in named)).json
    status = {i["source"].rsplit("/", 1)[-1]: (i["status"], i["code"]) for i in report["inputs"]}
    assert status["broken.json"][0] == "invalid"
    assert status["notes.json"] == ("rejected", "not_a_return_document")
    assert status["empty"] == ("rejected", "directory_without_json")
    assert status["nameless.json"] == ("invalid", "input_has_invalid_returns")
    assert [r["code"] for r in report["returns"]] == ["return_shape_invalid"]
    assert report["errors"][0]["code"] == "return_shape_invalid"


def test_refusals_name_the_next_step(tmp_path: Path) -> None:
    missing = run_feedback(tmp_path / "nope")
    assert missing.returncode == 2
    assert missing.json["error"]["code"] == "feedback_input_missing" and missing.json["hint"]
    nothing = run_feedback()
    assert nothing.returncode == 2 and nothing.json["error"]["code"] == "feedback_no_input"


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Fresh Move", "fresh-move"),
        ("fresh_move", "fresh-move"),
        ("fresh-move!", "fresh-move"),
        ("Ｆｒｅｓｈ　Ｍｏｖｅ", "fresh-move"),
        ("Straße", "strasse"),
    ],
)
def test_proposed_names_fold_for_recurrence_only(name: str, key: str) -> None:
    assert normalize_name(name) == key


def test_the_report_does_not_depend_on_argument_order(vault: dict[str, Any]) -> None:
    root = vault["root"] / "returns"
    forward = run_feedback(root / "run-0", root / "run-2").json
    backward = run_feedback(root / "run-2", root / "run-0").json
    assert forward == backward
    assert copy.deepcopy(forward)["schema_version"] == 1
