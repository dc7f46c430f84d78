"""Open a python-pptx ``Presentation`` from members already read and checked.

``archive`` has to inflate every member once (CRC check, DTD refusal,
recovery). Handing python-pptx the original zip would inflate everything a
second time, and a recovered package would need a rebuilt zip. Instead the
verified member bytes are handed to python-pptx's own package loader through
its reader seam (python-pptx 1.0.x: ``PackageReader`` / ``_PackageLoader``,
whose cached lazy properties are pre-filled). If those internals are not
available, the members are re-zipped in memory (``ZIP_STORED``) and opened
the public way, which is slower but equivalent.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from pptx import Presentation
from pptx.api import _is_pptx_package
from pptx.opc.packuri import PACKAGE_URI, PackURI
from pptx.opc.serialized import PackageReader
from pptx.package import Package

try:  # python-pptx 1.0.x internals; see the module docstring
    from pptx.opc.package import _PackageLoader
    from pptx.opc.serialized import _ZipPkgReader
except ImportError:  # pragma: no cover - exercised only on other python-pptx versions
    _PackageLoader = None  # type: ignore[assignment,misc]
    _ZipPkgReader = None  # type: ignore[assignment,misc]


def _reader(members: dict[str, bytes]) -> Any:
    blobs = _ZipPkgReader(io.BytesIO())
    blobs.__dict__["_blobs"] = {PackURI("/" + name): blob for name, blob in members.items()}
    reader = PackageReader(io.BytesIO())
    reader.__dict__["_blob_reader"] = blobs
    return reader


class _MemberPackage(Package):
    """A ``Package`` whose loader reads from the verified member mapping."""

    def __init__(self, members: dict[str, bytes]) -> None:
        super().__init__(io.BytesIO())
        self._members = members

    def _load(self) -> _MemberPackage:
        loader = _PackageLoader(io.BytesIO(), self)
        loader.__dict__["_package_reader"] = _reader(self._members)
        pkg_xml_rels, parts = loader._load()
        self._rels.load_from_xml(PACKAGE_URI, pkg_xml_rels, parts)
        return self


def presentation_from_members(members: dict[str, bytes]) -> Any:
    """A python-pptx ``Presentation`` over exactly these member bytes."""
    if _PackageLoader is None or _ZipPkgReader is None:  # pragma: no cover
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as out:
            for name, blob in members.items():
                out.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), blob)
        return Presentation(io.BytesIO(buffer.getvalue()))
    presentation_part = _MemberPackage(members)._load().main_document_part
    if not _is_pptx_package(presentation_part):
        raise ValueError(f"not a PowerPoint package: content type {presentation_part.content_type}")
    return presentation_part.presentation
