"""CI selects exactly the changed packages plus the consumers of changed contracts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import changed_packages as cp

PACKAGES = [
    "analysis-writer",
    "archive-batch",
    "pptx-evidence",
    "returns-persistence",
    "tracking-db",
    "transcript",
    "video-extraction",
]
REGISTRY = {
    "video-manifest": {
        "producer": "video-extraction",
        "consumers": ["returns-persistence", "external"],
    },
    "worker-return": {
        "producer": "external",
        "consumers": ["returns-persistence", "analysis-writer"],
    },
}


@pytest.mark.parametrize(
    ("paths", "expected", "contracts"),
    [
        (["packages/transcript/src/rvault_transcript/cli.py"], ["transcript"], False),
        (
            ["packages/transcript/README.md", "packages/pptx-evidence/x.py"],
            ["pptx-evidence", "transcript"],
            False,
        ),
        (
            ["contracts/src/rvault_contracts/schemas/video-manifest/v3.schema.json"],
            ["returns-persistence", "video-extraction"],
            True,
        ),
        (
            ["contracts/src/rvault_contracts/schemas/worker-return/v5.schema.json"],
            ["analysis-writer", "returns-persistence"],
            True,
        ),
        (["contracts/src/rvault_contracts/writer.py"], PACKAGES, True),
        (["contracts/src/rvault_contracts/schemas/brand-new/v1.schema.json"], PACKAGES, True),
        (["Makefile"], PACKAGES, False),
        (["conformance/test_registry.py", "docs.md"], [], False),
    ],
)
def test_selection(paths: list[str], expected: list[str], contracts: bool) -> None:
    assert cp.select(paths, REGISTRY, PACKAGES) == {"contracts": contracts, "packages": expected}


def test_cli_with_explicit_files_uses_the_real_registry() -> None:
    result = subprocess.run(
        [sys.executable, str(Path(cp.__file__)), "--files", "packages/tracking-db/pyproject.toml"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout) == {"contracts": False, "packages": ["tracking-db"]}


def test_every_package_directory_is_known() -> None:
    assert cp.all_packages() == PACKAGES


def test_a_change_behind_an_api_selects_the_packages_that_depend_on_it() -> None:
    users = cp.api_users()
    reader = "packages/tracking-db/src/rvault_tracking_db/reader.py"
    assert reader in users, "the owner read is part of tracking-db's public api"
    assert "returns-persistence" in users[reader]
    selected = cp.select([reader], REGISTRY, PACKAGES, users)["packages"]
    assert {"tracking-db", "returns-persistence"} <= set(selected)


def test_a_change_outside_the_api_closure_selects_only_its_owner() -> None:
    users = cp.api_users()
    command = "packages/tracking-db/src/rvault_tracking_db/commands/read.py"
    assert command not in users
    assert cp.select([command], REGISTRY, PACKAGES, users)["packages"] == ["tracking-db"]


def test_api_closure_follows_imports_inside_the_owner_only(tmp_path: Path) -> None:
    src = tmp_path / "src" / "rvault_x"
    (src / "sub").mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "api.py").write_text(
        "import json\nfrom rvault_x.sub import helper\nfrom rvault_y import z\n"
    )
    (src / "sub" / "__init__.py").write_text("")
    (src / "sub" / "helper.py").write_text("from rvault_x import deep\n")
    (src / "deep.py").write_text("")
    (src / "unused.py").write_text("")
    names = {path.relative_to(src).as_posix() for path in cp.api_closure(tmp_path)}
    assert names == {"__init__.py", "api.py", "sub/__init__.py", "sub/helper.py", "deep.py"}
