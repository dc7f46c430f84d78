"""The one error value is light and is the CLI's: raising it imports no CLI."""

from __future__ import annotations

import subprocess
import sys

from rvault_contracts import cli, errors


def test_the_cli_re_exports_the_one_refusal() -> None:
    assert cli.Refusal is errors.Refusal
    assert cli.failure_document is errors.failure_document
    refusal = errors.Refusal("input_missing", "the PDF does not exist", "a.pdf", hint="check")
    assert refusal.to_dict() == {
        "error": {"code": "input_missing", "message": "the PDF does not exist", "path": "a.pdf"},
        "hint": "check",
        "ok": False,
    }
    assert str(refusal) == "input_missing: the PDF does not exist"


def test_errors_and_the_shared_readers_import_no_argparse() -> None:
    script = (
        "import sys\n"
        "import rvault_contracts.errors\n"
        "import rvault_contracts.bounded_read\n"
        "import rvault_contracts.pdf_probe\n"
        "heavy = ('argparse', 'rvault_contracts.cli', 'pypdf')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    argv = [sys.executable, "-c", script]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
