"""Every refusal a tool can print carries a ``hint`` naming the next action.

A refusal or error code passes when its declaration (``rvault_<owner>.codes``,
``rvault_contracts.codes.SHARED``) gives its default hint, or when every site
that emits it names one (passes ``hint=``, or raises a class with a ``HINT``).
``cli.emit`` fills a missing hint from the declared ones, which the console
script registers.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from rvault_contracts import cli, hints
from rvault_contracts.codes import ISSUE, SHARED

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import emitted_codes
import refusal_codes

PACKAGES = [p.name for p in refusal_codes.packages()]
# Exit 1, not a refusal: an internal error is a bug to report, not an input to fix.
NOT_REFUSALS = frozenset({"internal_error"})


@pytest.mark.parametrize("package", PACKAGES)
def test_every_refusal_code_has_a_hint(package: str) -> None:
    declared = refusal_codes.declared(package)
    site_named = {
        name for name, code in declared.items() if code.hint is None and code.kinds != (ISSUE,)
    }
    missing = sorted(
        f"{site.code} ({site.path.name}:{site.line})"
        for site in emitted_codes.sites(refusal_codes.PACKAGES_DIR / package / "src")
        if site.code in site_named and site.raised and not site.hinted
    )
    assert not missing, (
        f"{package}: refusal codes emitted without a hint (pass hint= at the site or declare "
        f"the code's hint in its codes module): {missing}"
    )


def test_every_shared_refusal_code_has_a_hint() -> None:
    unhinted = {
        name for name, code in SHARED.items() if code.hint is None and code.kinds != (ISSUE,)
    }
    assert unhinted == NOT_REFUSALS


@pytest.mark.parametrize("package", PACKAGES)
def test_the_console_script_registers_its_hint_table(package: str) -> None:
    """Declared hints only help when ``console_main`` is given them."""
    if not refusal_codes.declared(package).hints():
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
