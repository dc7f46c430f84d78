"""Hostile inputs: links, escaping paths, bombs and malformed media.

Every case runs the owner's console script against a real vault and checks
three things: the tool refuses with a stable code (exit 2) or finishes
within its limits, the vault's files are exactly as before a refusal, and
the autouse ``sentinel`` tree outside the vault (where every planted link
points) is byte- and inode-identical afterwards.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import struct
import time
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import _vault
import pytest
from _harness import Run, command, run, tree_bytes

VID = _vault.VIDEO_ID
OUTCOMES: dict[str, str] = {}


def note(case: str, done: Run) -> None:
    """Record how a case ended, for docs/reliability.md (RVAULT_RELIABILITY_REPORT)."""
    code = None
    if done.stdout.strip():
        code = (json.loads(done.stdout).get("error") or {}).get("code")
    OUTCOMES[case] = f"exit {done.returncode}" + (f" {code}" if code else "")


@pytest.fixture(scope="module", autouse=True)
def _write_outcomes() -> object:
    yield
    report_dir = os.environ.get("RVAULT_RELIABILITY_REPORT")
    if report_dir and OUTCOMES:
        Path(report_dir).mkdir(parents=True, exist_ok=True)
        (Path(report_dir) / f"hostile-{os.getpid()}.json").write_text(
            json.dumps(OUTCOMES, indent=2, sort_keys=True)
        )


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _vault.build(tmp_path_factory.mktemp("hostile-base") / "vault")


@pytest.fixture
def vault(base: Path, tmp_path: Path) -> Path:
    """A private copy at a fixed path per test (artifacts name absolute paths)."""
    target = tmp_path / "vault"
    shutil.copytree(base, target, symlinks=True)
    fix_paths(base, target)
    return target


def fix_paths(old: Path, new: Path) -> None:
    """Rewrite the copied vault's absolute paths (config, manifest) to the copy."""
    for path in [new / _vault.DB, *new.rglob("*.video-extraction.json")]:
        path.write_bytes(path.read_bytes().replace(str(old).encode(), str(new).encode()))
    for lock in new.rglob("*.lock"):
        lock.unlink()


def refused(done: Run, *codes: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout[-800:], done.stderr[-800:])
    code = done.document["error"]["code"]
    assert code in codes, done.document
    return code


def unchanged(vault: Path, before: dict[str, bytes]) -> None:
    assert tree_bytes(vault) == before


def plan(vault: Path) -> Path:
    path = vault.parent / "plan.json"
    path.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "mutations": [
                    {
                        "kind": "set_config",
                        "path": ["hostile_probe"],
                        "expect": {"$missing": True},
                        "value": 1,
                    }
                ],
            }
        )
    )
    return path


def mutate_apply(vault: Path, db: Path | None = None) -> Run:
    db = db or vault / _vault.DB
    dry = run(command("rvault-db", "mutate", db, plan(vault)))
    sha = dry.document.get("input_sha256") or "0" * 64
    return run(command("rvault-db", "mutate", db, plan(vault), "--apply", "--expected-sha256", sha))


def transcript_cleanup(vault: Path, out: str = f"{VID}.txt") -> Run:
    transcripts = vault / "transcripts"
    return run(
        command(
            "rvault-transcript",
            "vtt-cleanup",
            transcripts / f"{VID}.en.vtt",
            transcripts / out,
            "--force",
        )
    )


def pptx_out(vault: Path, out: Path | None = None, deck: Path | None = None) -> Run:
    deck = deck or vault.parent / "deck.pptx"
    if not deck.exists():
        _vault.make_deck(deck, ["One", "Two"])
    out = out or vault / "pptx" / "deck.extraction.json"
    return run(command("rvault-pptx", "extract", deck, "--no-ocr", "--out", out))


def video_extract(vault: Path, video: Path, outdir: Path, video_id: str = VID) -> Run:
    return run(
        command(
            "rvault-video",
            "extract",
            video,
            outdir,
            video_id,
            "--vault-root",
            vault,
            "--region",
            "0,0,1,1",
            "--region-verified",
            "--force",  # crash and hostile runs replace the base vault's manifest
        )
    )


def swap_for_link(path: Path, target: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    path.symlink_to(target)


# --------------------------------------------------------------------------- symlinks


SymlinkCase = tuple[str, Callable[[Path, Path], Callable[[], Run]]]


def _db_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    swap_for_link(vault / _vault.DB, sentinel / "tracking-database.json")
    return lambda: mutate_apply(vault)


def _lock_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    (vault / f"{_vault.DB}.lock").symlink_to(sentinel / "secret.txt")
    return lambda: mutate_apply(vault)


def _db_read_through_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    swap_for_link(vault / _vault.DB, sentinel / "tracking-database.json")
    return lambda: run(command("rvault-db", "read", vault / _vault.DB))


def _backups_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    db = vault / _vault.DB
    document = json.loads(db.read_bytes())
    del document["schema_version"]
    document["config"]["schema_version"] = 1
    del document["config"]["pptx_directory_exclusions"]
    db.write_text(json.dumps(document, indent=2) + "\n")
    (vault / ".backups").symlink_to(sentinel / "writable")
    sha = run(command("rvault-db", "migrate", db)).document["input_sha256"]
    return lambda: run(command("rvault-db", "migrate", db, "--apply", "--expected-sha256", sha))


def _transcript_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    swap_for_link(vault / "transcripts" / f"{VID}.txt", sentinel / "secret.txt")
    return lambda: transcript_cleanup(vault)


def _timing_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    swap_for_link(vault / "transcripts" / f"{VID}.segments.json", sentinel / "secret.txt")
    return lambda: transcript_cleanup(vault)


def _quality_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    swap_for_link(vault / "transcripts" / f"{VID}.quality.json", sentinel / "secret.txt")
    return lambda: transcript_cleanup(vault)


def _vtt_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    swap_for_link(vault / "transcripts" / f"{VID}.en.vtt", sentinel / "secret.txt")
    return lambda: transcript_cleanup(vault)


def _pptx_out_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    swap_for_link(vault / "pptx" / "deck.extraction.json", sentinel / "secret.txt")
    return lambda: pptx_out(vault)


def _video_outdir_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    workdir = vault / "slides-rebuild" / VID
    video = vault.parent / "video.mp4"
    shutil.copy(workdir / f"{VID}.mp4", video)
    outdir = vault / "slides-rebuild" / "evil"
    outdir.symlink_to(sentinel / "writable")
    return lambda: video_extract(vault, workdir / f"{VID}.mp4", outdir, "evil")


def _video_manifest_is_link(vault: Path, sentinel: Path) -> Callable[[], Run]:
    workdir = vault / "slides-rebuild" / VID
    swap_for_link(workdir / f"{VID}.video-extraction.json", sentinel / "secret.txt")
    return lambda: video_extract(vault, workdir / f"{VID}.mp4", workdir)


def _video_outdir_escapes_vault(vault: Path, sentinel: Path) -> Callable[[], Run]:
    workdir = vault / "slides-rebuild" / VID
    return lambda: video_extract(vault, workdir / f"{VID}.mp4", vault / ".." / ".." / sentinel.name)


SYMLINK_CASES: list[SymlinkCase] = [
    ("database", _db_is_link),
    ("database-read", _db_read_through_link),
    ("database-lock", _lock_is_link),
    ("backup-directory", _backups_is_link),
    ("transcript", _transcript_is_link),
    ("timing-sidecar", _timing_is_link),
    ("quality-receipt", _quality_is_link),
    ("vtt-input", _vtt_is_link),
    ("pptx-out", _pptx_out_is_link),
    ("video-outdir", _video_outdir_is_link),
    ("video-manifest", _video_manifest_is_link),
]


@pytest.mark.parametrize("case", SYMLINK_CASES, ids=[c[0] for c in SYMLINK_CASES])
def test_a_symlink_at_a_read_or_write_path_is_refused(
    case: SymlinkCase, vault: Path, sentinel: Path
) -> None:
    _name, provoke = case
    action = provoke(vault, sentinel)
    before = tree_bytes(vault)
    done = action()
    note(f"symlink:{_name}", done)
    refused(done, "symlink_refused", "outdir_outside_vault", "path_outside_vault")
    unchanged(vault, before)
    # The sentinel fixture checks that the link's target was neither read into an
    # artifact nor written; a refusal printed nothing of it either.
    assert "private notes" not in done.stdout


def test_an_outdir_spelled_with_dotdot_outside_the_vault_is_refused(
    vault: Path, sentinel: Path
) -> None:
    done = _video_outdir_escapes_vault(vault, sentinel)()
    note("dotdot-outdir", done)
    assert done.returncode == 2, done.stdout
    assert not list((sentinel.parent / sentinel.name).glob("*.pdf"))


# --------------------------------------------------------------------------- hard links


def test_a_database_hard_linked_outside_the_vault_is_replaced_not_written_through(
    vault: Path, tmp_path: Path
) -> None:
    db = vault / _vault.DB
    outside = tmp_path / "outside" / "tracking-database.json"
    outside.parent.mkdir()
    os.link(db, outside)
    original = db.read_bytes()
    done = mutate_apply(vault)
    note("hardlink:database", done)
    assert done.returncode == 0, done.stdout
    assert outside.read_bytes() == original  # the other name still has the old inode
    assert db.read_bytes() != original and db.stat().st_ino != outside.stat().st_ino


def test_a_transcript_hard_linked_outside_the_vault_is_replaced_not_written_through(
    vault: Path, sentinel: Path
) -> None:
    transcript = vault / "transcripts" / f"{VID}.txt"
    transcript.unlink()
    os.link(sentinel / "secret.txt", transcript)
    done = transcript_cleanup(vault)
    note("hardlink:transcript", done)
    # Either refused as not what was read, or replaced by rename: never written through.
    assert done.returncode in (0, 2), done.stdout
    assert (sentinel / "secret.txt").read_bytes() == b"the speaker's private notes\n"


# --------------------------------------------------------------------------- paths inside artifacts

ESCAPING_PATHS = [
    "../../../sentinel/secret.pdf",
    "/etc/passwd",
    "C:\\Users\\speaker\\slides.pdf",
    "C:slides.pdf",
    "\\\\?\\C:\\slides.pdf",
    "\\\\server\\share\\slides.pdf",
    "NUL",
    "CON.pdf",
    "slides\x00.pdf",
    "",
]


@pytest.mark.parametrize("bad", ESCAPING_PATHS, ids=[repr(p)[:24] for p in ESCAPING_PATHS])
def test_manifest_paths_that_leave_the_vault_are_invalid(vault: Path, bad: str) -> None:
    from rvault_video_extraction.api import validate_manifest

    path = vault / "slides-rebuild" / VID / f"{VID}.video-extraction.json"
    document = json.loads(path.read_bytes())
    document["artifacts"][1]["path"] = bad
    report = validate_manifest(document, vault_root=vault, expected_video_id=VID)
    assert report.status == "invalid", report
    assert not report.trusted
    assert report.issues and all(issue.code for issue in report.issues)


@pytest.mark.parametrize("bad", ESCAPING_PATHS, ids=[repr(p)[:24] for p in ESCAPING_PATHS])
def test_timing_receipt_artifact_paths_that_leave_the_vault_are_refused(
    vault: Path, bad: str
) -> None:
    from rvault_transcript.receipts import ReceiptError, validate_timing

    transcripts = vault / "transcripts"
    receipt = json.loads((transcripts / f"{VID}.segments.json").read_bytes())
    receipt["provenance"]["artifact_path"] = bad
    try:
        validate_timing(receipt, (transcripts / f"{VID}.txt").read_bytes())
    except ReceiptError as error:
        assert error.code
        return
    # Accepted only as a plain POSIX name inside the transcript directory
    # ("C:slides.pdf", "NUL" and "CON.pdf" are ordinary file names here): contained.
    resolved = (transcripts / bad).resolve()
    assert resolved.parent == transcripts.resolve(), bad


@pytest.mark.parametrize(
    "hostile", ["2024-10-02-arguments\u0000.md", "../escape.md", "a/b.md", ".."]
)
def test_a_path_like_database_filename_is_refused_by_the_reader(vault: Path, hostile: str) -> None:
    """Found by this suite: talks[].filename was only a non-blank string, so a NUL byte,
    '/' or '..' reached consumers that build vault paths from it."""
    db = vault / _vault.DB
    document = json.loads(db.read_bytes())
    document["talks"][0]["filename"] = hostile
    db.write_text(json.dumps(document))
    before = tree_bytes(vault)
    done = run(command("rvault-db", "read", db))
    assert done.returncode == 2, done.stdout
    unchanged(vault, before)


# --------------------------------------------------------------------------- decks


def _deck_with(member: str, blob: bytes, base_deck: bytes) -> bytes:
    from rvault_testkit.pptx_evidence.sample_decks import replace_member

    return replace_member(base_deck, member, blob)


def _base_deck(tmp: Path) -> bytes:
    deck = tmp / "base.pptx"
    _vault.make_deck(deck, ["One", "Two"])
    return deck.read_bytes()


def test_a_zip_bomb_member_is_refused_quickly(vault: Path, tmp_path: Path) -> None:
    bomb = b"<" + b" " * (48 * 1024 * 1024) + b"/>"
    deck = tmp_path / "bomb.pptx"
    deck.write_bytes(_deck_with("ppt/slides/slide1.xml", bomb, _base_deck(tmp_path)))
    assert deck.stat().st_size < 1024 * 1024
    before = tree_bytes(vault)
    started = time.monotonic()
    done = pptx_out(vault, deck=deck)
    note("zip-bomb", done)
    assert time.monotonic() - started < 60
    refused(done, "archive_limit_exceeded", "input_too_large")
    unchanged(vault, before)


LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol "lol">\n'
    + "".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'
        for i in range(1, 10)
    )
    + "]>\n"
)


def _slide_xml(doctype: str, text: str) -> bytes:
    return (
        doctype + '<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">'
        '<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/>'
        '</p:nvGrpSpPr><p:grpSpPr/><p:sp><p:nvSpPr><p:cNvPr id="2" name="T"/><p:cNvSpPr/>'
        "<p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>"
        + text
        + "</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>"
    ).encode()


@pytest.mark.parametrize(
    "kind",
    ["billion-laughs", "external-entity"],
)
def test_xml_entities_in_a_deck_are_neither_expanded_nor_resolved(
    vault: Path, tmp_path: Path, sentinel: Path, kind: str
) -> None:
    if kind == "billion-laughs":
        xml = _slide_xml(LAUGHS, "&lol9;")
    else:
        doctype = (
            f'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY secret SYSTEM '
            f'"file://{sentinel / "secret.txt"}">]>\n'
        )
        xml = _slide_xml(doctype, "&secret;")
    deck = tmp_path / f"{kind}.pptx"
    deck.write_bytes(_deck_with("ppt/slides/slide1.xml", xml, _base_deck(tmp_path)))
    out = vault / "pptx" / f"{kind}.extraction.json"
    started = time.monotonic()
    done = pptx_out(vault, out=out, deck=deck)
    note(f"xml:{kind}", done)
    assert time.monotonic() - started < 60
    assert done.returncode in (0, 2), (done.stdout[-500:], done.stderr[-500:])
    written = out.read_bytes() if out.exists() else b""
    assert b"private notes" not in written and "private notes" not in done.stdout
    assert len(written) < 1024 * 1024  # no expansion (10**9 "lol"s) reached the artifact
    assert b"lollollol" not in written


def _png_header_only(width: int, height: int) -> bytes:
    """A valid tiny PNG whose header claims ``width`` x ``height`` (a decompression bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    row = b"\x00" + b"\x00" * ((width + 7) // 8)
    raw = zlib.compress(row * height, 9)
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def test_a_picture_decompression_bomb_stays_within_limits(vault: Path, tmp_path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches
    from rvault_testkit.pptx_evidence.sample_decks import first_media_member, replace_member

    bomb = _png_header_only(30000, 30000)
    assert len(bomb) < 2 * 1024 * 1024
    deck_path = tmp_path / "picture-bomb.pptx"
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    small = _png_header_only(8, 8)
    slide.shapes.add_picture(io.BytesIO(small), Inches(1), Inches(1), Inches(2), Inches(2))
    buffer = io.BytesIO()
    deck.save(buffer)
    package = buffer.getvalue()
    # python-pptx itself refuses to embed the bomb (PIL), so it is swapped in afterwards.
    deck_path.write_bytes(replace_member(package, first_media_member(package), bomb))
    out = vault / "pptx" / "bomb.extraction.json"
    started = time.monotonic()
    done = pptx_out(vault, out=out, deck=deck_path)
    note("picture-bomb", done)
    assert time.monotonic() - started < 120
    assert done.returncode in (0, 2), (done.returncode, done.stdout[-500:], done.stderr[-500:])
    json.loads(done.stdout)  # one JSON document either way


# --------------------------------------------------------------------------- media


@pytest.mark.parametrize("kind", ["truncated", "empty", "random-bytes", "directory"])
def test_malformed_video_is_refused_and_outputs_are_untouched(vault: Path, kind: str) -> None:
    workdir = vault / "slides-rebuild" / VID
    good = (workdir / f"{VID}.mp4").read_bytes()
    video = vault / "media" / f"{kind}.mp4"
    video.parent.mkdir()
    if kind == "truncated":
        video.write_bytes(good[: len(good) // 3])
    elif kind == "empty":
        video.write_bytes(b"")
    elif kind == "random-bytes":
        video.write_bytes(os.urandom(64 * 1024))
    else:
        video.mkdir()
    before = tree_bytes(vault)
    done = video_extract(vault, video, workdir)
    note(f"video:{kind}", done)
    assert done.returncode == 2, (done.stdout[-600:], done.stderr[-600:])
    assert done.document["error"]["code"]
    unchanged(vault, before)


def _cyclic_pdf() -> bytes:
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R] /Count 1 >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()


def test_a_pdf_with_a_cyclic_page_tree_is_refused_in_bounded_time(vault: Path) -> None:
    from rvault_video_extraction.api import PdfProbeError, probe_pdf

    workdir = vault / "slides-rebuild" / VID
    pdf = workdir / f"{VID}.context.pdf"
    pdf.write_bytes(_cyclic_pdf())
    started = time.monotonic()
    with pytest.raises(PdfProbeError) as error:
        probe_pdf(str(pdf))
    assert time.monotonic() - started < 30
    assert error.value.code
    manifest = workdir / f"{VID}.video-extraction.json"
    done = run(
        command("rvault-video", "validate", manifest, "--vault-root", vault, "--video-id", VID)
    )
    note("cyclic-pdf:validate", done)
    OUTCOMES["cyclic-pdf:probe"] = error.value.code
    document = done.document
    assert done.returncode != 0 or document.get("trusted") is not True, document


def _zip_bytes(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_deck_that_is_not_a_zip_or_has_traversal_members_is_refused(
    vault: Path, tmp_path: Path, sentinel: Path
) -> None:
    base = zipfile.ZipFile(io.BytesIO(_base_deck(tmp_path)))
    members = [(info.filename, base.read(info)) for info in base.infolist()]
    evil = tmp_path / "traversal.pptx"
    evil.write_bytes(_zip_bytes([*members, (f"../../{sentinel.name}/dropped.txt", b"x")]))
    before = tree_bytes(vault)
    done = pptx_out(vault, deck=evil, out=vault / "pptx" / "traversal.extraction.json")
    note("zip-traversal-member", done)
    assert done.returncode in (0, 2), done.stdout
    assert not (sentinel / "dropped.txt").exists()
    junk = tmp_path / "junk.pptx"
    junk.write_bytes(os.urandom(4096))
    done = pptx_out(vault, deck=junk, out=vault / "pptx" / "junk.extraction.json")
    note("deck-random-bytes", done)
    assert done.returncode == 2 and done.document["error"]["code"]
    if done.returncode == 2:
        assert tree_bytes(vault) == before


# --------------------------------------------------------------------------- case-fold collisions


@pytest.mark.parametrize("spelling", ["2024-01-01-A.MD", "2024-02-01-B.md"])
def test_a_case_folded_twin_in_the_analyses_directory_is_refused(
    tmp_path: Path, spelling: str
) -> None:
    """On a case-insensitive disk these would be one file: the writer refuses, touches nothing."""
    import sys

    sys.path.insert(0, str(_vault.ROOT / "conformance"))
    from _persist_producer import persisted_vault

    db, _, _ = persisted_vault(tmp_path)
    outdir = db.parent / "analyses"
    outdir.mkdir()
    (outdir / spelling).write_text("# the speaker's own notes\n")
    before = tree_bytes(db.parent)
    done = run(command("rvault-analysis", "write", tmp_path / "returns.json", outdir, "--db", db))
    note(f"case-fold:{spelling}", done)
    assert done.returncode == 2, done.stdout[-600:]
    assert done.document["error"]["code"]
    assert tree_bytes(db.parent) == before
    assert (outdir / spelling).read_text() == "# the speaker's own notes\n"
