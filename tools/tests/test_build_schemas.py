"""The contracts' schema generator: current versions regenerate byte for byte,
carry the generated mark, and the historical versions are frozen JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rvault_contracts.schemas import GENERATED_MARK

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import build_schemas

TOOL = Path(build_schemas.__file__)
FROZEN = [
    "worker-return/v1.schema.json",
    "worker-return/v2.schema.json",
    "worker-return/v3.schema.json",
    "worker-return/v4.schema.json",
    "returns-persistence-report/v1.schema.json",
]


def test_regeneration_is_byte_identical() -> None:
    for path, data in build_schemas.outputs().items():
        assert path.read_bytes() == data, f"{path} is stale: run {build_schemas.GENERATOR}"
    done = subprocess.run(
        [sys.executable, str(TOOL), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_every_generated_file_says_so_and_no_frozen_one_is_generated() -> None:
    generated = {
        path.relative_to(build_schemas.SCHEMAS).as_posix() for path in build_schemas.outputs()
    }
    assert generated.isdisjoint(FROZEN)
    for name in generated:
        comment = json.loads((build_schemas.SCHEMAS / name).read_text())["$comment"]
        assert comment.startswith(GENERATED_MARK + build_schemas.GENERATOR), name
    for name in FROZEN:
        assert "$comment" not in json.loads((build_schemas.SCHEMAS / name).read_text()), name


def test_check_names_a_stale_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(build_schemas, "SCHEMAS", tmp_path)
    assert build_schemas.main(["--check"]) == 1  # nothing written there yet
    assert build_schemas.main([]) == 0
    assert build_schemas.main(["--check"]) == 0
    target = tmp_path / "worker-return" / "v5.schema.json"
    target.write_bytes(target.read_bytes().replace(b"Worker return v5", b"Worker return"))
    assert build_schemas.main(["--check"]) == 1
