"""Refuse packages whose parts can be read two ways.

A zip directory can hold names that different OPC readers resolve to
different parts: ``SLIDE1.XML`` beside ``slide1.xml`` (part names are
case-insensitive), a member that is also a folder of other members,
query- or fragment-bearing names, a segment ending in a dot (trimmed by some
file systems), two relationships with one id (python-pptx binds the first
picture to whichever target it kept last), or two content-type entries for
one part.

Percent-encoding is valid in OPC part names (``ppt/media/image%201.png`` is
how a space is written), so it is accepted where it is canonical: each name is
decoded once, and the decoded, case-folded names are what the collision and
folder checks compare, so ``image%201.png`` beside ``image 1.png`` is still
two names for one part. What OPC forbids stays refused: a ``%`` not followed
by two hex digits, an encoded ``/`` or ``\\`` (it would move the part to another
folder), an encoded unreserved character (``%69`` for ``i``: the same part
under a second spelling) and bytes that do not decode as UTF-8.

Evidence bound to an ambiguous package could name a part the author never
saw, so the deck is refused (``ambiguous_package``) before anything is
catalogued. Name checks run on the zip directory, before any member is
inflated; the XML checks run on the verified member bytes.
"""

from __future__ import annotations

import re
import string
from urllib.parse import unquote_to_bytes

from lxml import etree
from rvault_contracts.cli import Refusal

from rvault_pptx_evidence import refusals

CONTENT_TYPES = "[Content_Types].xml"
_RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_CT_NS = "http://schemas.openxmlformats.org/package/2006/content-types"
_NON_CANONICAL_CHARACTERS = ("?", "#")
_PERCENT = re.compile(r"%(.{0,2})", re.DOTALL)
_HEX_PAIR = re.compile(r"[0-9A-Fa-f]{2}")
# RFC 3986 unreserved characters: OPC forbids percent-encoding them.
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


def _ambiguous(message: str, member: str) -> Refusal:
    return Refusal(refusals.AMBIGUOUS_PACKAGE, message, member)


def decoded_part_name(name: str) -> str:
    """``name`` with its percent-encoding decoded once; refused where OPC forbids it."""
    if "%" not in name:
        return name
    for match in _PERCENT.finditer(name):
        pair = match.group(1)
        if not _HEX_PAIR.fullmatch(pair):
            raise _ambiguous(f"zip member {name!r} has a malformed percent-encoding", name)
        decoded = chr(int(pair, 16))
        if decoded in "/\\":
            raise _ambiguous(
                f"zip member {name!r} percent-encodes {decoded!r}, which would move the part",
                name,
            )
        if decoded in _UNRESERVED:
            raise _ambiguous(
                f"zip member {name!r} percent-encodes the unreserved character {decoded!r}"
                " (a second spelling of the same part name)",
                name,
            )
    try:
        return unquote_to_bytes(name).decode("utf-8")
    except UnicodeDecodeError:
        raise _ambiguous(f"zip member {name!r} does not decode to UTF-8", name) from None


def check_member_names(names: list[str]) -> None:
    """Non-canonical, case-equivalent and folder-shadowing member names.

    Names are compared decoded once and case-folded: two members that decode
    to the same part are ambiguous however each is spelled.
    """
    seen: dict[str, str] = {}
    folders: set[str] = set()
    for name in names:
        for character in _NON_CANONICAL_CHARACTERS:
            if character in name:
                raise _ambiguous(
                    f"zip member {name!r} is not a canonical part name (contains {character!r})",
                    name,
                )
        decoded = decoded_part_name(name)
        if any(segment.endswith(".") for segment in decoded.split("/")):
            raise _ambiguous(
                f"zip member {name!r} has a segment ending in '.', which readers trim", name
            )
        key = decoded.casefold()
        if key in seen:
            raise _ambiguous(
                f"zip members {seen[key]!r} and {name!r} name the same part"
                " (part names are case-insensitive and compared percent-decoded)",
                name,
            )
        seen[key] = name
        segments = key.split("/")
        folders.update("/".join(segments[:end]) for end in range(1, len(segments)))
    for key, name in seen.items():
        if key in folders:
            raise _ambiguous(f"zip member {name!r} is also a folder of other members", name)


def _parse(member: str, blob: bytes) -> etree._Element:
    try:
        return etree.fromstring(blob, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise Refusal(
            refusals.STRUCTURAL_MEMBER_CORRUPT,
            f"structural member {member!r} is malformed XML ({exc})",
            member,
        ) from None


def _duplicates(values: list[str]) -> str | None:
    seen: set[str] = set()
    for value in values:
        key = value.casefold()
        if key in seen:
            return value
        seen.add(key)
    return None


def check_package_xml(members: dict[str, bytes]) -> None:
    """Duplicate relationship ids per part and duplicate content-type entries."""
    for name, blob in members.items():
        if not name.lower().endswith(".rels"):
            continue
        root = _parse(name, blob)
        ids = [el.get("Id", "") for el in root.iter(f"{{{_RELS_NS}}}Relationship")]
        duplicate = next((i for n, i in enumerate(ids) if i in ids[:n]), None)
        if duplicate is not None:
            raise _ambiguous(
                f"relationship id {duplicate!r} appears twice in {name!r}; its target is ambiguous",
                name,
            )
    root = _parse(CONTENT_TYPES, members[CONTENT_TYPES])
    for tag, attribute in (("Override", "PartName"), ("Default", "Extension")):
        values = [el.get(attribute, "") for el in root.iter(f"{{{_CT_NS}}}{tag}")]
        duplicate = _duplicates(values)
        if duplicate is not None:
            raise _ambiguous(
                f"[Content_Types].xml has two {tag} entries for {duplicate!r}", CONTENT_TYPES
            )
