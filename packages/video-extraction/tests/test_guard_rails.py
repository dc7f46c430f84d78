"""Guard rails seen on real runs: ids that contradict the contract path, a full disk."""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from typing import Any

import pytest
from rvault_contracts import writer
from rvault_testkit.video_extraction.synthetic import TalkSpec, distinct_slides, timeline
from rvault_video_extraction import cli as video_cli
from rvault_video_extraction import frame_sink
from rvault_video_extraction.extract import output_names

SCRIPT = "rvault-video"


def small_spec() -> TalkSpec:
    return TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(2)), noise_sigma=4)


def test_id_that_contradicts_the_contract_directory_is_refused(
    cli: Callable[..., Any], talk_vault: Callable[..., Any], snapshot_tree: Callable[..., Any]
) -> None:
    vault = talk_vault(small_spec())
    assert cli(SCRIPT, "extract", vault.video, vault.outdir, vault.video_id).returncode == 0
    before = snapshot_tree(vault.root)
    result = cli(SCRIPT, "extract", vault.video, vault.outdir, "WrongId")
    assert result.returncode == 2
    assert result.json["error"]["code"] == "video_id_path_mismatch"
    assert vault.video_id in result.json["error"]["message"]
    other = vault.root / "slides-rebuild" / "WrongId"
    misplaced = cli(SCRIPT, "extract", vault.video, other, "WrongId")
    assert misplaced.json["error"]["code"] == "video_id_path_mismatch"
    assert snapshot_tree(vault.root) == before
    assert not list(vault.outdir.glob("WrongId.*"))


def _run_in_process(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    code = video_cli.main(argv)
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("where", ["intermediate_frames", "bundle_install"])
def test_full_disk_is_io_error_exit_2_and_loses_nothing(
    talk_vault: Callable[..., Any],
    snapshot_file: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    where: str,
) -> None:
    vault = talk_vault(small_spec())
    argv = ["extract", str(vault.video), str(vault.outdir), vault.video_id, "--fps", "2"]
    assert _run_in_process(argv, capsys)[0] == 0
    paths = [vault.outdir / name for name in output_names(vault.video_id)]
    before = {path: snapshot_file(path) for path in paths}

    def no_space(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    if where == "intermediate_frames":
        monkeypatch.setattr(frame_sink, "open", no_space, raising=False)
    else:
        monkeypatch.setattr(writer, "_write_all", no_space)
    # a different rate, so that the bundle really has new bytes to write
    code, failure = _run_in_process([*argv[:-1], "1", "--force"], capsys)
    assert code == 2
    assert failure["error"]["code"] == "io_error"
    assert {path: snapshot_file(path) for path in paths} == before
    leftovers = [
        p.name for p in vault.outdir.iterdir() if ".frames-" in p.name or "staged" in p.name
    ]
    assert leftovers == []
    assert "no space" in failure["error"]["message"].lower()
