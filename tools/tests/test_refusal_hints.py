"""Every refusal a tool can print carries a ``hint`` naming the next action.

The codes are the ones ``tools/refusal_codes.py`` derives from the source
(the generated README tables). A code passes when every site that emits it
passes ``hint=`` (or its class supplies one), or when a hint table has it: the
owner's ``HINTS`` (registered by its console script) or ``rvault_contracts``'
``DEFAULT_HINTS``; ``cli.emit`` fills a missing hint from those tables.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from rvault_contracts import cli, hints

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import refusal_codes

PACKAGES = [p.name for p in refusal_codes.packages()]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_refusal_code_has_a_hint(package: str) -> None:
    missing = refusal_codes.unhinted(refusal_codes.PACKAGES_DIR / package / "src")
    assert not missing, (
        f"{package}: refusal codes emitted without a hint (pass hint= at the site or add "
        f"the code to the package's HINTS table): {sorted(missing)}"
    )


def test_every_shared_refusal_code_has_a_hint() -> None:
    assert not refusal_codes.unhinted(refusal_codes.CONTRACTS_SRC)


@pytest.mark.parametrize("package", PACKAGES)
def test_the_console_script_registers_its_hint_table(package: str) -> None:
    """A ``HINTS`` table only helps when ``console_main`` is given it."""
    if not refusal_codes.hint_tables(refusal_codes.PACKAGES_DIR / package / "src"):
        return
    cli_modules = list((refusal_codes.PACKAGES_DIR / package / "src").glob("*/cli.py"))
    assert cli_modules, f"{package} has no cli.py"
    tree = ast.parse(cli_modules[0].read_text(encoding="utf-8"))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "console_main"
    ]
    assert calls and all(
        any(k.arg == "hint_table" for k in call.keywords) or len(call.args) == 3 for call in calls
    ), f"{package}: console_main is not given the package's HINTS"


def test_a_hint_table_lists_only_codes_the_source_emits() -> None:
    """A hint for a code nothing emits is dead text (a renamed code left behind).

    An owner may give a shared code (one ``rvault_contracts`` emits for it,
    e.g. ``not_regular_file`` or its bounded reader's) a hint of its own.
    """
    shared = {site.code for site in refusal_codes.extract(refusal_codes.CONTRACTS_SRC).sites}
    for package in PACKAGES:
        source = refusal_codes.PACKAGES_DIR / package / "src"
        emitted = shared | {site.code for site in refusal_codes.extract(source).sites}
        stale = set(refusal_codes.hint_tables(source)) - emitted
        assert not stale, f"{package}: HINTS for codes nothing emits: {sorted(stale)}"


def test_the_site_detector_tells_hinted_from_unhinted(tmp_path: Path) -> None:
    source = tmp_path / "src" / "demo_owner"
    source.mkdir(parents=True)
    (source / "__init__.py").write_text("")
    (source / "checks.py").write_text(
        "from rvault_contracts.cli import Refusal, refuse\n"
        "class Family(Refusal):\n"
        "    HINT = 'fix it'\n"
        "def a():\n"
        "    raise Refusal('with_hint', 'm', None, hint='do this')\n"
        "def b():\n"
        "    refuse('without_hint', 'm')\n"
        "def c():\n"
        "    raise Family('family_hint', 'm')\n"
        "def d():\n"
        "    refuse('tabled', 'm')\n"
        "HINTS = {'tabled': 'run x'}\n"
    )
    assert refusal_codes.unhinted(tmp_path / "src") == {"without_hint": {"checks"}}


def test_emit_fills_the_default_hint_of_a_refusal(capsys: pytest.CaptureFixture[str]) -> None:
    cli.emit(cli.failure_document("lock_unavailable", "held", "db.json"))
    printed = json.loads(capsys.readouterr().out)
    assert printed["hint"] == hints.DEFAULT_HINTS["lock_unavailable"]
    cli.emit(cli.failure_document("lock_unavailable", "held", None, hint="wait for batch 7"))
    assert json.loads(capsys.readouterr().out)["hint"] == "wait for batch 7"
    cli.emit({"ok": True, "code": "lock_unavailable"})
    assert "hint" not in json.loads(capsys.readouterr().out)


def test_the_console_scripts_print_their_tables_hints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end, the refusals a new user met without a hint now carry one."""
    from rvault_pptx_evidence.cli import main as pptx_main
    from rvault_tracking_db.cli import main as db_main

    renamed_pdf = tmp_path / "deck.pptx"
    renamed_pdf.write_bytes(b"%PDF-1.4\n")
    cases = [
        (pptx_main, ["extract", str(renamed_pdf), "--out", str(tmp_path / "x.json")], "not_a_zip"),
        (
            pptx_main,
            ["extract", str(renamed_pdf), "--out", str(tmp_path / "absent" / "x.json")],
            "output_directory_missing",
        ),
        (db_main, ["read", str(tmp_path)], "not_regular_file"),
    ]
    for main, argv, code in cases:
        assert main(argv) == cli.EXIT_REFUSED
        printed = json.loads(capsys.readouterr().out)
        assert printed["error"]["code"] == code
        assert printed["hint"] == hints.hint_for(code) and len(printed["hint"]) > 20
