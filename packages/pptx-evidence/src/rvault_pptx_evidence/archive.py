"""Open the OOXML zip safely and recover only what may be recovered.

Everything here runs before python-pptx sees a byte: the container is
sniffed (an encrypted deck is an OLE compound file, not a zip), the zip
directory is bounded (member count, declared sizes, compression ratio) before
any member is inflated, every member is read once so that CRC failures are
found, and every XML member is refused if it declares a DTD (the only route
to entity expansion). A bad-CRC member under ``ppt/media/`` is swapped for a
transparent placeholder in an in-memory copy of the package; a failure in any
structural member makes the deck unavailable. The source bytes are never
modified: recovery only changes the in-memory member mapping.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass, field

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import Refusal

from rvault_pptx_evidence import refusals
from rvault_pptx_evidence.limits import DEFAULT_LIMITS, Limits
from rvault_pptx_evidence.opc_names import check_member_names, check_package_xml
from rvault_pptx_evidence.versions import ARCHIVE_RECOVERY_SCHEMA_VERSION

OLE_CFB_SIGNATURE = bytes.fromhex("d0cf11e0a1b11ae1")
ZIP_LOCAL_SIGNATURE = b"PK\x03\x04"
MEDIA_PREFIX = "ppt/media/"
CONTENT_TYPES = "[Content_Types].xml"
# The spec's receipt type for a damaged media member. Schema v4 also admits
# ``decompression_failed`` (pipeline 1.5.0 wrote it); v5 admits only this type.
CRC_MISMATCH = "crc_mismatch"

# A 1x1 fully transparent RGBA PNG: the in-memory stand-in for a lost image.
PLACEHOLDER_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000b4944415478da636000020000050001e9fadcd80000000049454e44ae426082"
)
PLACEHOLDER_SHA256 = sha256_bytes(PLACEHOLDER_PNG)

_DTD_MARKERS = (
    b"<!DOCTYPE",
    b"<!ENTITY",
    "<!DOCTYPE".encode("utf-16-le"),
    "<!DOCTYPE".encode("utf-16-be"),
    "<!ENTITY".encode("utf-16-le"),
    "<!ENTITY".encode("utf-16-be"),
)


@dataclass(frozen=True)
class RecoveredMember:
    part_name: str
    error_type: str
    replacement_sha256: str

    def archive_recovery_record(self) -> dict[str, object]:
        return {
            "schema_version": ARCHIVE_RECOVERY_SCHEMA_VERSION,
            "part_name": self.part_name,
            "member_kind": "embedded_media",
            "error_type": self.error_type,
            "status": "recovered_with_placeholder_asset",
            "content_replaced": True,
            "replacement_sha256": self.replacement_sha256,
        }

    def corrupt_asset_record(self) -> dict[str, object]:
        return {
            "part_name": self.part_name,
            "error_type": self.error_type,
            "status": "recovered_with_placeholder",
        }


@dataclass
class OpenedArchive:
    """The verified member bytes python-pptx will read, plus what recovery changed."""

    members: dict[str, bytes]
    recovered: list[RecoveredMember] = field(default_factory=list)

    def recovered_by_part(self) -> dict[str, RecoveredMember]:
        return {item.part_name: item for item in self.recovered}


def _is_xml_member(name: str) -> bool:
    lowered = name.lower()
    return lowered.endswith((".xml", ".rels", ".vml"))


def _check_name(name: str) -> None:
    if (
        not name
        or name.startswith("/")
        or "\\" in name
        or "\x00" in name
        or any(part in ("", ".", "..") for part in name.rstrip("/").split("/"))
    ):
        raise Refusal(refusals.UNSAFE_MEMBER_NAME, f"unsafe zip member name {name!r}")


def _open_zip(data: bytes) -> zipfile.ZipFile:
    if data.startswith(OLE_CFB_SIGNATURE):
        raise Refusal(
            refusals.ENCRYPTED_PACKAGE,
            "the file is an OLE compound document: an encrypted"
            " or legacy (.ppt) deck, not an OOXML package",
        )
    looks_zip = data.startswith(ZIP_LOCAL_SIGNATURE)
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, OverflowError) as exc:
        if looks_zip:
            raise Refusal(
                refusals.TRUNCATED_ARCHIVE,
                f"the zip starts like a package but its directory is unreadable ({exc})",
            ) from None
        raise Refusal(refusals.NOT_A_ZIP, "the file is not a zip package") from None


def _bound_directory(infos: list[zipfile.ZipInfo], limits: Limits) -> None:
    if len(infos) > limits.max_members:
        raise Refusal(
            refusals.ARCHIVE_LIMIT_EXCEEDED,
            f"{len(infos)} zip members; the limit is {limits.max_members}",
        )
    seen: set[str] = set()
    total = 0
    for info in infos:
        _check_name(info.filename)
        if info.filename in seen:
            raise Refusal(refusals.UNSAFE_MEMBER_NAME, f"duplicate zip member {info.filename!r}")
        seen.add(info.filename)
        if info.flag_bits & 0x1:
            raise Refusal(refusals.ENCRYPTED_PACKAGE, f"zip member {info.filename!r} is encrypted")
        if info.file_size > limits.max_member_uncompressed_bytes:
            raise Refusal(
                refusals.ARCHIVE_LIMIT_EXCEEDED,
                f"member {info.filename!r} declares {info.file_size} bytes uncompressed",
            )
        if info.file_size > limits.ratio_exempt_bytes:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_compression_ratio:
                raise Refusal(
                    refusals.ARCHIVE_LIMIT_EXCEEDED,
                    f"member {info.filename!r} has compression ratio {ratio:.0f}:1 "
                    f"(limit {limits.max_compression_ratio:.0f}:1)",
                )
        total += info.file_size
        if total > limits.max_total_uncompressed_bytes:
            raise Refusal(
                refusals.ARCHIVE_LIMIT_EXCEEDED,
                f"the package declares more than {limits.max_total_uncompressed_bytes}"
                " bytes uncompressed",
            )


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[bytes | None, str]:
    """The member bytes, or ``(None, diagnostic)`` when its content is damaged.

    A damaged payload with an intact header is one fault, the spec's CRC
    mismatch, however the reader notices it: the inflated bytes fail the
    recorded CRC-32, or a flipped bit turns the deflate stream invalid and
    the inflater stops before the CRC can be compared. The diagnostic says
    which, for messages only; the receipt type is always ``crc_mismatch``.
    """
    try:
        return zf.read(info), ""
    except zipfile.BadZipFile as exc:
        if "CRC" in str(exc):
            return None, "the inflated bytes do not match the recorded CRC-32"
        raise Refusal(
            refusals.TRUNCATED_ARCHIVE,
            f"member {info.filename!r} is unreadable ({exc})",
            info.filename,
        ) from None
    except zlib.error as exc:
        return None, f"the deflate stream is corrupt ({exc}), so the recorded CRC-32 cannot match"
    except (EOFError, OSError, ValueError, NotImplementedError) as exc:
        raise Refusal(
            refusals.TRUNCATED_ARCHIVE,
            f"member {info.filename!r} is unreadable ({exc})",
            info.filename,
        ) from None


def open_archive(data: bytes, limits: Limits = DEFAULT_LIMITS) -> OpenedArchive:
    """Validate the container and return the (possibly recovered) package bytes."""
    with _open_zip(data) as zf:
        infos = [info for info in zf.infolist() if not info.is_dir()]
        _bound_directory(infos, limits)
        check_member_names([info.filename for info in infos])
        names = {info.filename for info in infos}
        if CONTENT_TYPES not in names:
            raise Refusal(
                refusals.NOT_A_PRESENTATION,
                "the zip has no [Content_Types].xml: not an OOXML package",
            )
        members: dict[str, bytes] = {}
        recovered: list[RecoveredMember] = []
        for info in infos:
            blob, diagnostic = _read_member(zf, info)
            if blob is None:
                if not info.filename.startswith(MEDIA_PREFIX):
                    raise Refusal(
                        refusals.STRUCTURAL_MEMBER_CORRUPT,
                        f"structural member {info.filename!r} is corrupt ({CRC_MISMATCH}: "
                        f"{diagnostic}); the deck is unavailable until it is restored or"
                        " re-exported",
                        info.filename,
                    )
                recovered.append(RecoveredMember(info.filename, CRC_MISMATCH, PLACEHOLDER_SHA256))
                blob = PLACEHOLDER_PNG
            elif _is_xml_member(info.filename) and any(marker in blob for marker in _DTD_MARKERS):
                raise Refusal(
                    refusals.XML_DTD_REFUSED,
                    f"XML member {info.filename!r} declares a DTD; entity declarations are refused",
                    info.filename,
                )
            members[info.filename] = blob
    check_package_xml(members)
    return OpenedArchive(members=members, recovered=recovered)
