"""canonical-vectors: what every owner refuses when one vector value is not canonical JSON.

Every owner reads JSON only through ``rvault_contracts.strict_json`` and hashes
only through ``rvault_contracts.canonical``. Each case changes one field of
the published vector file and hands the bytes to a fresh interpreter that
has imported the owner's package (as ``test_canonical_vectors_owners`` does);
the owner's strict read must refuse with the stable strict-JSON code. An
infinite number is the one value JSON has no canonical text for (``1e400``
is how a literal spells it; ``json.dumps`` writes it as ``Infinity``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
from _refusals import RefusalCase, assert_refused, mutated, refusal_cases
from rvault_contracts.schemas import schema_issues

OWNERS = ["tracking-db", "transcript", "pptx-evidence", "video-extraction",
          "returns-persistence", "analysis-writer"]  # fmt: skip
COVERS = [
    ("canonical-vectors", "contracts", "tracking-db"),
    ("canonical-vectors", "contracts", "transcript"),
    ("canonical-vectors", "contracts", "pptx-evidence"),
    ("canonical-vectors", "contracts", "video-extraction"),
    ("canonical-vectors", "contracts", "returns-persistence"),
    ("canonical-vectors", "contracts", "analysis-writer"),
]
REFUSALS = {
    ("canonical-vectors", "contracts", "tracking-db"): [
        ("non_finite_number", ["vectors", 0, "value"], 1e400),
    ],
    ("canonical-vectors", "contracts", "transcript"): [
        ("non_finite_number", ["vectors", 0, "value"], 1e400),
    ],
    ("canonical-vectors", "contracts", "pptx-evidence"): [
        ("non_finite_number", ["vectors", 0, "value"], 1e400),
    ],
    ("canonical-vectors", "contracts", "video-extraction"): [
        ("non_finite_number", ["vectors", 0, "value"], 1e400),
    ],
    ("canonical-vectors", "contracts", "returns-persistence"): [
        ("non_finite_number", ["vectors", 0, "value"], 1e400),
    ],
    ("canonical-vectors", "contracts", "analysis-writer"): [
        ("non_finite_number", ["vectors", 0, "value"], 1e400),
    ],
}

PROBE = """
import json, sys
import {module}
from rvault_contracts.canonical import canonical_bytes, sha256_bytes
from rvault_contracts.strict_json import StrictJSONError, loads_strict
try:
    vectors = loads_strict(sys.stdin.buffer.read())
except StrictJSONError as error:
    print(json.dumps({{"code": error.code}}))
else:
    ok = all(sha256_bytes(canonical_bytes(v["value"])) == v["sha256"] for v in vectors["vectors"])
    print(json.dumps({{"code": None, "ok": ok}}))
"""


def _owner_reads(owner: str, data: bytes) -> dict:
    code = PROBE.format(module=f"rvault_{owner.replace('-', '_')}")
    result = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True,
                            check=True)  # fmt: skip
    return json.loads(result.stdout)


def _published() -> dict:
    vector_file = resources.files("rvault_contracts") / "vectors" / "canonical-v1.json"
    return json.loads(vector_file.read_bytes())


def test_every_owner_reads_the_published_vectors() -> None:
    assert sorted(OWNERS) == sorted(edge[2] for edge in COVERS)
    assert schema_issues("canonical-vectors", 1, _published()) == []
    data = json.dumps(_published()).encode("utf-8")
    for owner in OWNERS:
        assert _owner_reads(owner, data) == {"code": None, "ok": True}, owner


@pytest.mark.parametrize("case", refusal_cases(REFUSALS))
def test_consumer_refuses_one_invalid_field(case: RefusalCase) -> None:
    data = json.dumps(mutated(_published(), case)).encode("utf-8")
    assert_refused(case, [_owner_reads(case.consumer, data)["code"]])
