"""LazyCommand: a subcommand module is imported when its command is used, not before."""

from __future__ import annotations

import argparse
import json
import sys
import types
from collections.abc import Iterator

import pytest
from rvault_contracts import cli

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
