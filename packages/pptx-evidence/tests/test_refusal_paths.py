"""Refusal branches no other test reaches: each one ends as its stable code
(exit 2 from the command), and nothing is written.

Limits are lowered instead of building huge inputs, and the worker's
misbehaviour (a tampered or undecodable response, a crash, a kill) is staged
by patching ``worker._child_payload`` in a subprocess before the CLI runs, so
the forked child inherits the patch and the supervisor is the real one.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.cli import Refusal
from rvault_pptx_evidence import api, source
from rvault_pptx_evidence.archive import PLACEHOLDER_SHA256, open_archive
from rvault_pptx_evidence.extract import extract_path
from rvault_pptx_evidence.limits import Limits
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_testkit.pptx_evidence import sample_decks

# ``rvault-pptx extract`` in a fresh interpreter, with the worker's limit
# profile and/or its payload builder replaced (argv: mode, limits JSON, CLI args).
PATCHED_CLI = """
import functools, json, os, signal, sys
from rvault_contracts.canonical import canonical_bytes
from rvault_contracts.strict_json import loads_strict
from rvault_pptx_evidence import worker
from rvault_pptx_evidence.cli import main
from rvault_pptx_evidence import extract_deck as command
from rvault_pptx_evidence.limits import Limits

mode, limits, argv = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
real = worker._child_payload

def staged(*args):
    if mode == "crash":
        raise SystemExit(3)  # the child dies without writing a result
    if mode == "noisy_crash":
        sys.stderr.write("Traceback (most recent call last):\\n  secret-path /home/x\\n")
        sys.stderr.flush()
        raise SystemExit(3)
    if mode == "killed":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "not_json":
        return b'{"ok": true, "document": '
    payload = loads_strict(real(*args))
    if mode == "request":
        payload["request"]["ocr_mode"] = "tampered"
    elif mode == "version":
        payload["document"]["pipeline_version"] = "0.0.0"
    elif mode == "internal":
        payload = {"ok": False, "internal": "ValueError: boom", "request": payload["request"]}
    return canonical_bytes(payload)

if mode != "none":
    worker._child_payload = staged
if limits:
    command.run_isolated = functools.partial(worker.run_isolated, limits=Limits(**limits))
sys.exit(main(argv))
"""


def _extract(
    deck: Path, out: Path, *, mode: str = "none", **limits: object
) -> tuple[int, dict[str, Any]]:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            PATCHED_CLI,
            mode,
            json.dumps(limits),
            "extract",
            str(deck),
            "--no-ocr",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout)


def _refused(
    deck_bytes: bytes,
    tmp_path: Path,
    snapshot_tree: Any,
    code: str,
    *,
    mode: str = "none",
    path: str | None = None,
    **limits: object,
) -> dict[str, Any]:
    """Run the command on ``deck_bytes``; assert exit 2, ``code`` and an untouched tree."""
    deck = tmp_path / "talk.pptx"
    deck.write_bytes(deck_bytes)
    before = snapshot_tree(tmp_path)
    rc, document = _extract(deck, tmp_path / "talk.json", mode=mode, **limits)
    assert rc == 2, document
    assert document["ok"] is False
    assert document["error"]["code"] == code, document
    assert document["error"]["path"] == (str(deck) if path is None else path)
    assert snapshot_tree(tmp_path) == before  # no --out, no lock file, deck unchanged
    return document["error"]


def _with_extra_member(deck: bytes, name: str, blob: bytes) -> bytes:
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(deck)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns "Duplicate name"
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr(name, blob)
    return out.getvalue()


# -- the source file ---------------------------------------------------------


def test_input_too_large(picture_deck: Path, tmp_path: Path, snapshot_tree: Any) -> None:
    deck = picture_deck.read_bytes()
    error = _refused(deck, tmp_path, snapshot_tree, "input_too_large", max_input_bytes=1000)
    assert error["message"] == f"the deck is {len(deck)} bytes; the limit is 1000"


def test_input_that_grows_past_the_limit_while_read(
    picture_deck: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fstat`` said small enough, the read delivers more: refused mid-read."""
    real_fstat = os.fstat

    def shrunk(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        fields = list(st[:10])
        fields[6] = 10  # st_size
        return os.stat_result(fields)

    monkeypatch.setattr(source.os, "fstat", shrunk)
    with pytest.raises(Refusal) as refused:
        source.read_source(picture_deck, Limits(max_input_bytes=1000))
    assert refused.value.code == "input_too_large"
    assert refused.value.message == "the deck grew past the input limit while read"


@pytest.mark.parametrize("call", ["open", "read"])
def test_open_or_read_failure_is_input_unreadable(
    picture_deck: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(source.os, call, fail)
    with pytest.raises(Refusal) as refused:
        source.read_source(picture_deck)
    monkeypatch.undo()
    assert (refused.value.code, refused.value.path) == ("input_unreadable", str(picture_deck))
    assert refused.value.message == f"cannot {call} the deck: {os.strerror(errno.EIO)}"


# -- the zip directory ---------------------------------------------------------


def test_compression_ratio_limit(picture_deck: Path, tmp_path: Path, snapshot_tree: Any) -> None:
    # theme1.xml inflates about 5:1; with no exemption and a 4:1 limit it is a bomb.
    error = _refused(
        picture_deck.read_bytes(),
        tmp_path,
        snapshot_tree,
        "archive_limit_exceeded",
        ratio_exempt_bytes=0,
        max_compression_ratio=4.0,
    )
    assert "compression ratio" in error["message"] and "(limit 4:1)" in error["message"]


def test_compression_ratio_exemption_for_small_members(picture_deck: Path) -> None:
    deck = picture_deck.read_bytes()
    with pytest.raises(Refusal) as refused:
        open_archive(deck, Limits(ratio_exempt_bytes=0, max_compression_ratio=4.0))
    assert refused.value.code == "archive_limit_exceeded"
    # Every member is under 1 MiB: the same ratio limit does not apply to them.
    assert open_archive(deck, Limits(max_compression_ratio=4.0)).recovered == []


def test_member_uncompressed_size_limit(picture_deck: Path) -> None:
    with pytest.raises(Refusal) as refused:
        open_archive(picture_deck.read_bytes(), Limits(max_member_uncompressed_bytes=5000))
    assert refused.value.code == "archive_limit_exceeded"
    assert "bytes uncompressed" in refused.value.message


def test_encrypted_zip_member_is_refused(
    picture_deck: Path, tmp_path: Path, snapshot_tree: Any
) -> None:
    """A zip (not OLE) whose member carries the traditional-encryption flag."""
    deck = sample_decks.mark_member_encrypted(picture_deck.read_bytes(), "ppt/slides/slide1.xml")
    error = _refused(deck, tmp_path, snapshot_tree, "encrypted_package")
    assert error["message"] == "zip member 'ppt/slides/slide1.xml' is encrypted"


def test_duplicate_member_names_are_refused(
    picture_deck: Path, tmp_path: Path, snapshot_tree: Any
) -> None:
    deck = _with_extra_member(picture_deck.read_bytes(), "ppt/slides/slide1.xml", b"<p:sld/>")
    error = _refused(deck, tmp_path, snapshot_tree, "unsafe_member_name")
    assert error["message"] == "duplicate zip member 'ppt/slides/slide1.xml'"


def test_unreadable_member_header_is_truncated_archive(picture_deck: Path) -> None:
    """The directory is intact but a member's local header is not."""
    package = picture_deck.read_bytes()
    member = "ppt/slides/slide2.xml"
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        offset = zf.getinfo(member).header_offset
    damaged = package[:offset] + b"XX" + package[offset + 2 :]
    with pytest.raises(Refusal) as refused:
        open_archive(damaged)
    assert (refused.value.code, refused.value.path) == ("truncated_archive", member)


# -- member contents -----------------------------------------------------------


@pytest.mark.parametrize(
    "damage", [sample_decks.corrupt_member_stream, sample_decks.flip_member_payload_byte]
)
def test_damaged_media_payload_is_recovered_as_crc_mismatch(
    picture_deck: Path, tmp_path: Path, snapshot_file: Any, schema_valid: Any, damage: Any
) -> None:
    """A payload the inflater rejects and one whose inflated bytes differ are
    the same fault: the spec's ``crc_mismatch`` receipt, never
    ``decompression_failed``."""
    package = picture_deck.read_bytes()
    member = sample_decks.first_media_member(package)
    damaged = tmp_path / "damaged.pptx"
    damaged.write_bytes(damage(package, member))
    before = snapshot_file(damaged)
    doc = extract_path(damaged, "damaged.pptx", ocr_mode=OCR_DISABLED)
    assert snapshot_file(damaged) == before
    schema_valid(doc)
    assert [(r["part_name"], r["error_type"]) for r in doc["archive_recovery"]] == [
        (member, "crc_mismatch")
    ]
    assert doc["archive_recovery"][0]["replacement_sha256"] == PLACEHOLDER_SHA256
    assert doc["corrupt_assets"] == [
        {
            "part_name": member,
            "error_type": "crc_mismatch",
            "status": "recovered_with_placeholder",
        }
    ]
    picture = next(s for s in doc["per_slide_visual"][1]["shapes_summary"] if s["is_picture"])
    assert picture["picture_asset_status"] == "corrupt"
    reading = api.classify(doc)
    assert reading.status == api.CURRENT and reading.degraded is True


def test_uninflatable_structural_member_refuses(picture_deck: Path) -> None:
    member = "ppt/slides/slide1.xml"
    damaged = sample_decks.corrupt_member_stream(picture_deck.read_bytes(), member)
    with pytest.raises(Refusal) as refused:
        open_archive(damaged)
    assert (refused.value.code, refused.value.path) == ("structural_member_corrupt", member)
    assert "crc_mismatch" in refused.value.message
    assert "deflate stream is corrupt" in refused.value.message


@pytest.mark.parametrize("theme", [b"<a:theme", b""])
def test_malformed_theme_is_package_unreadable(
    picture_deck: Path, tmp_path: Path, snapshot_tree: Any, theme: bytes
) -> None:
    """python-pptx loads the theme as an opaque part; the extractor's parse fails later."""
    deck = sample_decks.replace_member(picture_deck.read_bytes(), "ppt/theme/theme1.xml", theme)
    error = _refused(deck, tmp_path, snapshot_tree, "package_unreadable")
    assert error["message"].startswith("the package topology is broken (XMLSyntaxError")


# -- the worker's answer -------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("request", "the worker's response does not echo the request it was given"),
        ("version", "the worker answered with another schema or pipeline version"),
    ],
)
def test_worker_protocol_mismatch(
    picture_deck: Path, tmp_path: Path, snapshot_tree: Any, mode: str, message: str
) -> None:
    error = _refused(
        picture_deck.read_bytes(), tmp_path, snapshot_tree, "worker_protocol_mismatch", mode=mode
    )
    assert error["message"] == message


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("crash", "the worker exited without a result"),
        ("not_json", "the worker's result is not strict JSON"),
    ],
)
def test_worker_failed(
    picture_deck: Path, tmp_path: Path, snapshot_tree: Any, mode: str, message: str
) -> None:
    error = _refused(picture_deck.read_bytes(), tmp_path, snapshot_tree, "worker_failed", mode=mode)
    assert error["message"].startswith(message)


def test_worker_killed_by_a_signal(picture_deck: Path, tmp_path: Path, snapshot_tree: Any) -> None:
    """The branch a CPU-limit (SIGXCPU/SIGKILL) kill takes, without burning 120 s of CPU."""
    error = _refused(
        picture_deck.read_bytes(), tmp_path, snapshot_tree, "worker_resource_limit", mode="killed"
    )
    assert error["message"] == "the worker was terminated by signal SIGKILL"


def test_worker_internal_failure_is_exit_1(
    picture_deck: Path, tmp_path: Path, snapshot_tree: Any
) -> None:
    deck = tmp_path / "talk.pptx"
    deck.write_bytes(picture_deck.read_bytes())
    before = snapshot_tree(tmp_path)
    rc, document = _extract(deck, tmp_path / "talk.json", mode="internal")
    assert rc == 1
    assert document["error"]["code"] == "internal_error"
    assert "ValueError: boom" in document["error"]["message"]
    assert snapshot_tree(tmp_path) == before


def test_unpatched_helper_extracts(picture_deck: Path, tmp_path: Path) -> None:
    """The harness itself: with nothing staged the same run succeeds and writes."""
    rc, report = _extract(picture_deck, tmp_path / "talk.json")
    assert rc == 0, report
    assert report["ok"] is True and report["slide_count"] == 2
    assert (tmp_path / "talk.json").is_file()


def test_worker_diagnostics_become_a_bounded_receipt(
    picture_deck: Path, tmp_path: Path, snapshot_tree: Any
) -> None:
    """Raw worker stderr never reaches the caller: only its count and digest."""
    from rvault_contracts.canonical import sha256_bytes
    from rvault_contracts.schemas import is_valid

    deck = tmp_path / "talk.pptx"
    deck.write_bytes(picture_deck.read_bytes())
    rc, document = _extract(deck, tmp_path / "talk.json", mode="noisy_crash")
    assert rc == 2 and document["error"]["code"] == "worker_failed"
    receipt = document["worker_failure"]
    assert is_valid("pptx-worker-failure", 1, receipt)
    assert receipt["supervisor_reason_code"] == "no_result"
    noise = b"Traceback (most recent call last):\n  secret-path /home/x\n"
    assert receipt["diagnostics"] == {
        "line_count": 2,
        "byte_count": len(noise),
        "sha256": sha256_bytes(noise),
        "truncated": False,
    }
    assert "secret-path" not in json.dumps(document)


def test_psutil_version_is_fail_closed(picture_deck: Path, monkeypatch: Any) -> None:
    import psutil
    from rvault_pptx_evidence import worker

    monkeypatch.setattr(psutil, "__version__", "5.9.0")
    with pytest.raises(Refusal) as refused:
        worker.run_isolated(picture_deck, "deck.pptx", ocr_mode=OCR_DISABLED)
    assert refused.value.code == "worker_monitor_unavailable"
    assert "psutil==7.2.2" in refused.value.message
