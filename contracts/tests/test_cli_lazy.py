"""Lazy start-up: a subcommand module is imported, its parser built and a hint table read
only when used, not before."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import types
from collections.abc import Iterator

import pytest
from rvault_contracts import cli, hints
from rvault_contracts.codes import SHARED

_MODULE = "rvault_lazy_demo_commands"


def _register(subparsers: argparse._SubParsersAction, help_text: str = "say hello") -> None:
    greet = subparsers.add_parser("greet", help=help_text, description="Greets NAME.")
    greet.add_argument("name")
    greet.set_defaults(handler=lambda args: (cli.emit({"ok": True, "name": args.name}), 0)[1])


@pytest.fixture
def demo_module() -> Iterator[types.ModuleType]:
    """A command module that exists only once imported (counted), like a real one."""
    module = types.ModuleType(_MODULE)
    module.imports = 0  # type: ignore[attr-defined]
    module.register = _register  # type: ignore[attr-defined]

    class _Finder:
        @staticmethod
        def find_spec(name: str, path: object = None, target: object = None) -> object:
            if name != _MODULE:
                return None
            import importlib.util

            class _Loader:
                def create_module(self, spec: object) -> types.ModuleType:
                    module.imports += 1  # type: ignore[attr-defined]
                    return module

                def exec_module(self, loaded: types.ModuleType) -> None:
                    pass

            return importlib.util.spec_from_loader(name, _Loader())

    sys.meta_path.insert(0, _Finder)  # type: ignore[arg-type]
    try:
        yield module
    finally:
        sys.meta_path.remove(_Finder)  # type: ignore[arg-type]
        sys.modules.pop(_MODULE, None)


def _tool(help_text: str = "say hello") -> argparse.ArgumentParser:
    return cli.build_parser(
        "demo-tool", "A demo tool.", "1.2.3", [cli.LazyCommand(_MODULE, {"greet": help_text})]
    )


def test_version_and_help_import_no_command_module(
    demo_module: types.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = _tool()
    for argv in (["--version"], ["--help"]):
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
    assert "greet" in capsys.readouterr().out and "say hello" in parser.format_help()
    assert demo_module.imports == 0 and _MODULE not in sys.modules  # type: ignore[attr-defined]


def test_the_command_runs_after_one_import(
    demo_module: types.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = _tool()
    assert cli.run(parser, ["greet", "Ada"]) == 0
    assert json.loads(capsys.readouterr().out) == {"name": "Ada", "ok": True}
    assert cli.run(parser, ["greet", "Bo"]) == 0
    assert demo_module.imports == 1  # type: ignore[attr-defined]
    with pytest.raises(SystemExit):
        parser.parse_args(["greet", "--help"])
    assert "Greets NAME." in capsys.readouterr().out


def test_a_stale_declared_help_fails_on_first_use(demo_module: types.ModuleType) -> None:
    with pytest.raises(ValueError, match="help differs"):
        _tool("an old help text").parse_args(["greet", "x"])


def test_a_declared_command_the_module_lacks_fails_on_first_use(
    demo_module: types.ModuleType,
) -> None:
    parser = cli.build_parser(
        "demo-tool",
        "A demo tool.",
        "1.2.3",
        [cli.LazyCommand(_MODULE, {"greet": "say hello", "wave": "wave"})],
    )
    with pytest.raises(ValueError, match="does not register"):
        parser.parse_args(["wave"])


def test_lazy_handler_imports_its_module_when_it_runs(demo_module: types.ModuleType) -> None:
    demo_module.answer = lambda args: 7  # type: ignore[attr-defined]
    handler = cli.lazy_handler(_MODULE, "answer")
    assert demo_module.imports == 0  # type: ignore[attr-defined]
    assert handler(argparse.Namespace()) == 7 and demo_module.imports == 1  # type: ignore[attr-defined]


def test_a_command_module_needing_a_missing_library_is_dependency_missing(
    demo_module: types.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """Imported while parsing, a module's missing media library is still a refusal document."""

    def needs_media(subparsers: argparse._SubParsersAction) -> None:
        raise ModuleNotFoundError("No module named 'cv2'", name="cv2")

    demo_module.register = needs_media  # type: ignore[attr-defined]
    assert cli.run(_tool(), ["greet", "x"]) == cli.EXIT_REFUSED
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "dependency_missing"


def _three_command_tool() -> argparse.ArgumentParser:
    commands = {"greet": "say hello", "wave": "wave", "nod": "nod"}
    return cli.build_parser(
        "demo-tool", "A demo tool.", "1.2.3", [cli.LazyCommand(_MODULE, commands)]
    )


def test_only_the_parser_of_the_command_used_is_built(
    demo_module: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Building an ArgumentParser reads gettext catalogs from disk; a tool builds one, not one
    per declared command (rvault-db declares eighteen)."""

    def register_all(subparsers: argparse._SubParsersAction) -> None:
        _register(subparsers)
        for name in ("wave", "nod"):
            subparsers.add_parser(name, help=name).set_defaults(handler=lambda args: 0)

    demo_module.register = register_all  # type: ignore[attr-defined]
    built: list[str | None] = []
    original = argparse.ArgumentParser.__init__

    def counting(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        built.append(kwargs.get("prog"))  # type: ignore[arg-type]
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(argparse.ArgumentParser, "__init__", counting)
    parser = _three_command_tool()
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    assert built == ["demo-tool"]
    assert parser.parse_args(["greet", "Ada"]).name == "Ada"
    # the module registers all three; the two not used are built when it adopts them
    assert sorted(built[1:]) == ["demo-tool greet", "demo-tool nod", "demo-tool wave"]


@pytest.mark.parametrize("columns", [None, "", "0", "wide", "50", "200"])
def test_help_is_as_wide_as_argparse_would_make_it(
    columns: str | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The formatter's width comes without shutil, by shutil's own rule."""
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli._help_columns() == shutil.get_terminal_size().columns
    plain = argparse.ArgumentParser(prog="demo-tool", description="A demo tool " * 12)
    ours = cli._Parser(prog="demo-tool", description="A demo tool " * 12)
    assert ours.format_help() == plain.format_help()


def test_a_hint_table_is_imported_when_a_refusal_needs_it(
    demo_module: types.ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--version and --help never read the code tables; the first refusal without a hint does."""
    monkeypatch.setattr(hints, "_registered", {})
    demo_module.HINTS = {"usage_error": "run demo-tool greet NAME"}  # type: ignore[attr-defined]
    table = hints.LazyHints(_MODULE)
    with pytest.raises(SystemExit):
        cli.console_main(
            lambda: cli.build_parser("demo-tool", "A demo tool.", "1", []), ["--version"], table
        )
    assert capsys.readouterr().out == "demo-tool 1\n"
    assert demo_module.imports == 0  # type: ignore[attr-defined]
    assert cli.console_main(_tool, [], table) == cli.EXIT_REFUSED
    assert json.loads(capsys.readouterr().out)["hint"] == "run demo-tool greet NAME"
    assert demo_module.imports == 1 and dict(table) == demo_module.HINTS  # type: ignore[attr-defined]


def test_the_shared_default_hints_are_the_declared_ones() -> None:
    assert dict(hints.DEFAULT_HINTS) == SHARED.hints() and len(hints.DEFAULT_HINTS) > 30
