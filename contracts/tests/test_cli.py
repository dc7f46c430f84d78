"""The shared CLI runner keeps stdout to exactly one JSON document."""

from __future__ import annotations

import argparse
import json

import pytest
from rvault_contracts import cli


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="demo-tool")
    parser.add_argument("--version", action="version", version="demo-tool 1.0")
    sub = parser.add_subparsers()
    ok = sub.add_parser("ok")
    ok.set_defaults(handler=lambda args: (cli.emit({"ok": True}), cli.EXIT_OK)[1])
    refuse = sub.add_parser("refuse")
    refuse.set_defaults(handler=lambda args: cli.refuse("bad_input", "the input is bad", "$.x"))
    boom = sub.add_parser("boom")
    boom.set_defaults(handler=lambda args: 1 / 0)
    need = sub.add_parser("need")
    need.add_argument("--value", required=True)
    return parser


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    code = cli.run(_parser(), argv)
    return code, json.loads(capsys.readouterr().out)


def test_success(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["ok"], capsys) == (0, {"ok": True})


def test_refusal_is_exit_2_with_the_failure_document(capsys: pytest.CaptureFixture[str]) -> None:
    code, document = _run(["refuse"], capsys)
    assert code == cli.EXIT_REFUSED
    assert document == {
        "ok": False,
        "error": {"code": "bad_input", "message": "the input is bad", "path": "$.x"},
    }


def test_internal_error_is_exit_1_and_still_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, document = _run(["boom"], capsys)
    assert code == cli.EXIT_INTERNAL
    assert document["error"]["code"] == "internal_error"
    assert "ZeroDivisionError" in document["error"]["message"]


def test_usage_error_is_exit_2_with_json_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(_parser(), ["need"])
    captured = capsys.readouterr()
    assert code == cli.EXIT_REFUSED
    assert json.loads(captured.out)["error"]["code"] == "usage_error"
    assert "--value" in captured.err


def test_version_still_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.run(_parser(), ["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == "demo-tool 1.0"


def test_missing_command_is_a_usage_error_document(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(_parser(), [])
    captured = capsys.readouterr()
    assert code == cli.EXIT_REFUSED
    assert json.loads(captured.out)["error"]["code"] == "usage_error"
    assert "usage: demo-tool" in captured.err


def test_console_main_refuses_non_utf8_arguments_before_running(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran: list[str] = []

    def build() -> argparse.ArgumentParser:
        parser = _parser()
        ran.append("built")
        return parser

    bad = "caf" + b"\xe9".decode("utf-8", "surrogateescape")
    code = cli.console_main(build, ["ok", bad])
    document = json.loads(capsys.readouterr().out)
    assert code == cli.EXIT_REFUSED
    assert ran == []
    assert document["error"] == {
        "code": "argument_not_utf8",
        "message": "a command-line argument (path or label) is not valid UTF-8",
        "path": "caf\\xe9",
    }


def test_console_main_runs_valid_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.console_main(_parser, ["ok"]) == cli.EXIT_OK
    assert json.loads(capsys.readouterr().out) == {"ok": True}


def test_finish_returns_the_code_in_process() -> None:
    assert cli.finish(0) == 0
    assert cli.finish(2) == 2


_CONSOLE_SCRIPT = """
import argparse, sys
from rvault_contracts import cli

def build():
    parser = argparse.ArgumentParser()
    parser.add_argument("code", type=int)
    def handler(args):
        kept = [[i] for i in range(200_000)]  # never freed: the process ends in finish
        cli.emit({"ok": True, "kept": len(kept)})
        sys.stderr.write("progress line")  # unflushed: finish must flush it
        return cli.finish(args.code)
    parser.set_defaults(handler=handler)
    return parser

sys.exit(cli.console_main(build))
"""


@pytest.mark.parametrize("code", [0, 2])
def test_finish_ends_a_console_script_with_flushed_output(code: int) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _CONSOLE_SCRIPT, str(code)], capture_output=True, check=False
    )
    assert done.returncode == code
    assert json.loads(done.stdout) == {"kept": 200_000, "ok": True}
    assert done.stderr == b"progress line"


class _Greet:
    """A subcommand module as build_parser expects: ``register(subparsers)``."""

    @staticmethod
    def register(subparsers: argparse._SubParsersAction) -> None:
        greet = subparsers.add_parser("greet")
        greet.set_defaults(handler=lambda args: (cli.emit({"ok": True}), cli.EXIT_OK)[1])


def test_build_parser_gives_every_tool_the_same_shape(capsys: pytest.CaptureFixture[str]) -> None:
    parser = cli.build_parser("demo-tool", "A demo tool.", "1.2.3", [_Greet])
    assert parser.epilog == cli.EXIT_EPILOG
    assert cli.run(parser, ["greet"]) == 0 and json.loads(capsys.readouterr().out) == {"ok": True}
    assert cli.run(parser, []) == cli.EXIT_REFUSED
    captured = capsys.readouterr()
    assert json.loads(captured.out)["error"]["code"] == "usage_error"
    assert "required: COMMAND" in captured.err
    with pytest.raises(SystemExit) as shown:
        cli.run(parser, ["--version"])
    assert shown.value.code == 0 and capsys.readouterr().out.strip() == "demo-tool 1.2.3"


def test_a_missing_third_party_module_is_dependency_missing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def needs_media(args: argparse.Namespace) -> int:
        raise ModuleNotFoundError("No module named 'cv2'", name="cv2")

    parser = _parser()
    parser._subparsers._group_actions[0].choices["ok"].set_defaults(handler=needs_media)  # type: ignore[union-attr]
    assert cli.run(parser, ["ok"]) == cli.EXIT_REFUSED
    document = json.loads(capsys.readouterr().out)
    assert document["error"]["code"] == "dependency_missing"
    assert "'cv2'" in document["error"]["message"] and "[media]" in document["hint"]


def test_apply_command_repeats_the_dry_run_with_the_reviewed_digest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen: list[str | None] = []
    parser = _parser()
    sub = parser._subparsers._group_actions[0]  # type: ignore[union-attr]
    write = sub.add_parser("write")
    write.add_argument("path")
    write.add_argument("--apply", action="store_true")
    write.add_argument("--expected-sha256")
    write.set_defaults(handler=lambda args: (seen.append(cli.apply_command("ab" * 32)), 0)[1])
    assert cli.run(parser, ["write", "my vault/db.json"]) == 0
    assert seen == [f"demo-tool write 'my vault/db.json' --apply --expected-sha256 {'ab' * 32}"]
    assert cli.invocation() == ("demo-tool", "write", "my vault/db.json")
    # a stale digest (either spelling) and --apply are replaced, never repeated
    words = ("t", "x", "--apply", "--expected-sha256", "00" * 32, "--expected-sha256=1", "-v")
    assert cli.apply_command("cd" * 32, words) == f"t x -v --apply --expected-sha256 {'cd' * 32}"
    assert (
        cli.apply_command(None, ("t", "init", "v")) == "t init v --apply --expected-sha256 missing"
    )
    assert cli.apply_command("cd" * 32, ()) is None
    capsys.readouterr()
