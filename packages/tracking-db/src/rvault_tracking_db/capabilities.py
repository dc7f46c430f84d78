"""The one shared source-capability resolver.

Queue eligibility, return provenance and terminal-status checks must agree on
what a talk can actually be processed from, so this module is the only place
that decides it. A *local* capability is an artifact that its source-specific
checker can really read below the vault root (or, for decks, the configured
``pptx_source_dir``): the declared path must be relative, stay inside the
root, traverse no symbolic link below the root, name a regular file, and pass
the checker (UTF-8 text with content, a PPTX package, a PDF envelope, an MP4
``ftyp`` box). An *active remote* capability is a video or slides URL that no
``source_rejections`` record rejects; processing performs that acquisition.
``transcript_source: manual`` is provenance only and proves nothing.

Everything here is standard library only: ``rvault_tracking_db.api`` re-exports
it for returns-persistence.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_tracking_db.ids import google_drive_id, youtube_id
from rvault_tracking_db.rejections import match_rejection

LOCAL_TRANSCRIPT = "local_transcript"
LOCAL_PPTX = "local_pptx"
LOCAL_PDF = "local_pdf"
LOCAL_VIDEO = "local_video"
REMOTE_VIDEO = "remote_video"
REMOTE_SLIDES = "remote_slides"

LOCAL_CAPABILITIES = frozenset({LOCAL_TRANSCRIPT, LOCAL_PPTX, LOCAL_PDF, LOCAL_VIDEO})
REMOTE_CAPABILITIES = frozenset({REMOTE_VIDEO, REMOTE_SLIDES})

ROOT_VAULT = "vault"
ROOT_PPTX = "pptx_source_dir"

LEGACY_PDF_FIELDS = ("slides_local_path", "slides_pdf_path", "pdf_path")


@dataclass(frozen=True)
class SourceRoots:
    """Where local artifacts may live: the vault root and the deck source root."""

    vault_root: Path
    pptx_source_dir: Path | None = None

    @classmethod
    def from_config(cls, vault_root: Path, config: Mapping[str, Any] | None) -> SourceRoots:
        """``config.pptx_source_dir`` when it is a native absolute path, else the vault root."""
        pptx_dir = None
        if isinstance(config, Mapping):
            value = config.get("pptx_source_dir")
            if isinstance(value, str) and value and Path(value).is_absolute():
                pptx_dir = Path(value)
        return cls(vault_root=vault_root, pptx_source_dir=pptx_dir)

    def root_for(self, name: str) -> Path:
        if name == ROOT_PPTX and self.pptx_source_dir is not None:
            return self.pptx_source_dir
        return self.vault_root


@dataclass(frozen=True)
class Finding:
    """Why a declared source is not a capability (auditable, never fatal)."""

    field: str
    code: str
    value: str

    def to_dict(self) -> dict[str, str]:
        return {"field": self.field, "code": self.code, "value": self.value}


@dataclass(frozen=True)
class Resolution:
    capabilities: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def local(self) -> list[dict[str, Any]]:
        return [c for c in self.capabilities if c["capability"] in LOCAL_CAPABILITIES]

    @property
    def remote(self) -> list[dict[str, Any]]:
        return [c for c in self.capabilities if c["capability"] in REMOTE_CAPABILITIES]


# --- path safety ---------------------------------------------------------------


def relative_path_issue(value: object) -> str | None:
    """Lexical checks on a declared root-relative path; ``None`` when acceptable."""
    if not isinstance(value, str) or not value.strip():
        return "path_empty"
    if "\\" in value or "\x00" in value:
        return "path_not_portable"
    if value.startswith("/") or (len(value) >= 2 and value[1] == ":"):
        return "path_not_relative"
    parts = value.split("/")
    if any(part in {"", ".", ".."} for part in parts):
        return "path_escapes_root" if ".." in parts else "path_not_canonical"
    return None


def open_under_root(root: Path, relative: str) -> tuple[int | None, str | None]:
    """Open ``root/relative`` read-only without following any link below ``root``.

    Returns ``(fd, None)`` or ``(None, code)``. The root itself may be a
    configured symlink; every component below it is opened with
    ``O_NOFOLLOW`` relative to its parent descriptor, so a swapped component
    cannot redirect the read.
    """
    code = relative_path_issue(relative)
    if code is not None:
        return None, code
    try:
        dir_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except (OSError, ValueError):  # ValueError: a configured root with a NUL byte
        return None, "root_unavailable"
    parts = relative.split("/")
    try:
        for part in parts[:-1]:
            try:
                next_fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
            except FileNotFoundError:
                return None, "missing"
            except OSError:
                return None, "symlink_or_not_directory"
            os.close(dir_fd)
            dir_fd = next_fd
        try:
            st = os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None, "missing"
        except OSError:
            return None, "unreadable"
        if stat.S_ISLNK(st.st_mode):
            return None, "symlink"
        if not stat.S_ISREG(st.st_mode):
            return None, "not_regular_file"
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
        except OSError:
            return None, "unreadable"
        return fd, None
    finally:
        os.close(dir_fd)


# --- source-specific checkers ----------------------------------------------------


TRANSCRIPT_CHUNK_BYTES = 1 << 20


def _check_transcript(fd: int) -> str | None:
    """Strict UTF-8 with some non-space text, decoded in chunks (bounded memory)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    has_text = False
    with os.fdopen(fd, "rb") as handle:
        while True:
            chunk = handle.read(TRANSCRIPT_CHUNK_BYTES)
            try:
                text = decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError:
                return "malformed"
            has_text = has_text or bool(text.strip())
            if not chunk:
                break
    return None if has_text else "empty"


def _check_pdf(fd: int) -> str | None:
    with os.fdopen(fd, "rb") as handle:
        head = handle.read(1024)
        size = os.fstat(handle.fileno()).st_size
        handle.seek(max(0, size - 1024))
        tail = handle.read()
    if b"%PDF-" not in head or b"%%EOF" not in tail:
        return "malformed"
    return None


def _check_pptx(fd: int) -> str | None:
    import zipfile  # only a vault with a local deck opens one (status of one without: not loaded)

    with os.fdopen(fd, "rb") as handle:
        try:
            with zipfile.ZipFile(handle) as archive:
                names = set(archive.namelist())
        except (zipfile.BadZipFile, OSError, ValueError):
            return "malformed"
    if "[Content_Types].xml" not in names or "ppt/presentation.xml" not in names:
        return "malformed"
    return None


def _check_mp4(fd: int) -> str | None:
    with os.fdopen(fd, "rb") as handle:
        head = handle.read(12)
    return None if len(head) >= 8 and head[4:8] == b"ftyp" else "malformed"


_CHECKERS = {
    LOCAL_TRANSCRIPT: _check_transcript,
    LOCAL_PDF: _check_pdf,
    LOCAL_PPTX: _check_pptx,
    LOCAL_VIDEO: _check_mp4,
}


def check_local(roots: SourceRoots, capability: str, root_name: str, relative: str) -> str | None:
    """``None`` when the artifact is readable by its checker, else a reason code."""
    fd, code = open_under_root(roots.root_for(root_name), relative)
    if fd is None:
        return code
    try:
        return _CHECKERS[capability](fd)
    except OSError:
        return "unreadable"


# --- the resolver ----------------------------------------------------------------


def _local_candidates(talk: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """(capability, root, field, path) declarations, in a fixed order."""
    out: list[tuple[str, str, str, str]] = []
    yt = talk.get("youtube_id")
    yt = yt if isinstance(yt, str) and youtube_id(f"https://youtu.be/{yt}") == yt else None
    gd = talk.get("google_drive_id")
    gd = (
        gd
        if isinstance(gd, str) and google_drive_id(f"https://drive.google.com/open?id={gd}") == gd
        else None
    )
    if "transcript_path" in talk and talk["transcript_path"] not in (None, ""):
        out.append((LOCAL_TRANSCRIPT, ROOT_VAULT, "transcript_path", talk["transcript_path"]))
    if yt is not None:
        out.append((LOCAL_TRANSCRIPT, ROOT_VAULT, "youtube_id", f"transcripts/{yt}.txt"))
    if "pptx_path" in talk and talk["pptx_path"] not in (None, ""):
        out.append((LOCAL_PPTX, ROOT_PPTX, "pptx_path", talk["pptx_path"]))
    for name in LEGACY_PDF_FIELDS:
        if name in talk and talk[name] not in (None, ""):
            out.append((LOCAL_PDF, ROOT_VAULT, name, talk[name]))
    if gd is not None:
        out.append((LOCAL_PDF, ROOT_VAULT, "google_drive_id", f"slides/{gd}.pdf"))
    if yt is not None:
        out.append((LOCAL_PDF, ROOT_VAULT, "youtube_id", f"slides/{yt}.pdf"))
        out.append((LOCAL_VIDEO, ROOT_VAULT, "youtube_id", f"slides-rebuild/{yt}/{yt}.mp4"))
    return out


def resolve(talk: Mapping[str, Any], roots: SourceRoots) -> Resolution:
    """Derive the auditable ``source_capabilities`` of one talk.

    Declared local paths that fail (escaped, symlinked, missing, malformed)
    become findings, never capabilities. Fallback paths derived from the
    talk's IDs are probed silently: their absence is normal.
    """
    capabilities: dict[tuple[str, str, str], dict[str, Any]] = {}
    findings: list[Finding] = []
    for capability, root_name, field_name, value in _local_candidates(talk):
        declared = field_name not in {"youtube_id", "google_drive_id"}
        if not isinstance(value, str):
            findings.append(Finding(field_name, "path_not_string", repr(value)))
            continue
        code = check_local(roots, capability, root_name, value)
        if code is None:
            key = (capability, root_name, value)
            capabilities.setdefault(
                key, {"capability": capability, "root": root_name, "path": value}
            )
        elif declared:
            findings.append(Finding(field_name, code, value))
    rejections = talk.get("source_rejections")
    for capability, field_name, source_type, parser in (
        (REMOTE_VIDEO, "video_url", "video", youtube_id),
        (REMOTE_SLIDES, "slides_url", "slides", google_drive_id),
    ):
        url = talk.get(field_name)
        if url in (None, ""):
            continue
        if not isinstance(url, str) or not url.lower().startswith(("https://", "http://")):
            findings.append(Finding(field_name, "url_not_http", str(url)))
            continue
        if match_rejection(source_type, url, rejections if isinstance(rejections, list) else None):
            findings.append(Finding(field_name, "rejected_source", url))
            continue
        key = (capability, "remote", url)
        capabilities[key] = {"capability": capability, "url": url, "provider_id": parser(url)}
    ordered = [capabilities[key] for key in sorted(capabilities)]
    return Resolution(ordered, findings)


def source_capabilities(talk: Mapping[str, Any], roots: SourceRoots) -> list[dict[str, Any]]:
    """Just the capability list (the value stored as ``talk.source_capabilities``)."""
    return resolve(talk, roots).capabilities
