"""Render the vault report for one database and install it into OUTDIR.

The steps, each in its own module: read (the tracking-db owner read, the
pattern catalog), ask the owners about every talk's evidence
(:mod:`.evidence`), build the overview rows (:mod:`.overview`), draw the
trends (:mod:`.charts`), render each analysed talk's page with thumbnails
of its trusted slide pages (:mod:`.talk_page`, :mod:`.thumbnails`), then
install every file as one transaction (:mod:`.output`). Nothing is written
until every body is rendered, so a refused input changes nothing.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes, sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_returns_persistence.api import Catalog, load_catalog
from rvault_tracking_db.api import SourceRoots, read_database

from rvault_analysis_writer.__about__ import __version__
from rvault_analysis_writer.evidence_bytes import EvidenceCheck, StaleEvidence
from rvault_analysis_writer.placement import check_output_directory
from rvault_analysis_writer.site import charts, render
from rvault_analysis_writer.site.catalog_feedback import CatalogFeedback, catalog_feedback
from rvault_analysis_writer.site.evidence import Evidence, evidence_job
from rvault_analysis_writer.site.feedback import read_feedback
from rvault_analysis_writer.site.goals import GoalView, goal_views
from rvault_analysis_writer.site.identity import IdentityNote, identity_notes
from rvault_analysis_writer.site.output import MANIFEST, install_site
from rvault_analysis_writer.site.overview import ANALYSED_STATUSES, TalkRow, build_rows, totals
from rvault_analysis_writer.site.parallel import ordered_map
from rvault_analysis_writer.site.paths import Scrubber
from rvault_analysis_writer.site.search import Document, index_script
from rvault_analysis_writer.site.search_documents import talk_documents
from rvault_analysis_writer.site.talk_page import talk_page
from rvault_analysis_writer.site.thumbnails import Thumbnails, thumbnail_job

REPORT_VERSION = 1
PROGRESS_EVERY = 100


@dataclass(frozen=True)
class SiteRequest:
    outdir: Path
    db: Path
    vault_root: Path | None = None
    catalog: Path | None = None
    outside_vault: bool = False
    returns: tuple[Path, ...] = ()
    search: bool = True
    """Build the search index and its scripts (``--no-search``: a site without any script)."""
    """Batch files whose receipt-bound returns give each talk its catalog feedback."""


def _vault_root(request: SiteRequest) -> Path:
    root = request.vault_root if request.vault_root is not None else request.db.parent
    if not root.is_dir():
        raise Refusal("vault_root_invalid", f"{root} is not a directory", str(root))
    return root


def _set_aside_invalid_ledgers(
    talks: list[dict[str, Any]], evidence: list[Evidence]
) -> tuple[list[dict[str, Any]], dict[str, tuple[IdentityNote, ...]]]:
    """A stored ledger that breaks its contract is never drawn, and never locks the vault.

    That talk's page is rendered without its ledger and says why, with the command that
    requeues it; every other talk renders as usual (the owner read's per-talk rule).
    """
    kept: list[dict[str, Any]] = []
    notes: dict[str, tuple[IdentityNote, ...]] = {}
    for index, (talk, found) in enumerate(zip(talks, evidence, strict=True)):
        if not found.ledger_issues:
            kept.append(talk)
            continue
        first = found.ledger_issues[0]
        where = f'$["talks"][{index}]{first["path"].removeprefix("$")}'
        notes[str(talk.get("filename"))] = (
            IdentityNote(
                "blocking",
                "pattern_observations_invalid",
                f"the persisted evidence ledger breaks pattern-observations v2 at {where}: "
                f"{first['message']}; its findings are not shown. Requeue the talk with "
                "rvault-db queue normalize, then claim and persist it again.",
            ),
        )
        kept.append({k: v for k, v in talk.items() if k != "pattern_observations"})
    return kept, notes


def _thumbnail_jobs(rows: list[TalkRow], vault_root: Path) -> dict[str, Thumbnails]:
    """Render every analysed talk's trusted slide pages (page name -> thumbnails)."""
    wanted = [
        row
        for row in rows
        if row.page is not None and row.evidence.slides.trusted and row.evidence.slides.sha256
    ]
    jobs = [
        (vault_root, str(row.evidence.slides.path), str(row.evidence.slides.sha256))
        for row in wanted
    ]
    return {
        str(row.page): thumbs
        for row, thumbs in zip(wanted, ordered_map(thumbnail_job, jobs), strict=True)
    }


def _thumbnail_note(row: TalkRow, thumbs: Thumbnails | None) -> str:
    slides = row.evidence.slides
    if thumbs is None:
        return f"No thumbnails: {slides.reason}."
    if not thumbs.pages:
        return f"No thumbnails: {thumbs.problem}."
    note = f"{thumbs.page_count} pages of {slides.path} ({slides.reason})."
    return note + (f" {thumbs.problem}." if thumbs.problem else "")


def _search_files(documents: list[Document]) -> dict[str, bytes]:
    """The index as a script, the vendored MiniSearch with its licence, the page glue."""
    return {
        "search-index.js": index_script(documents),
        "search.js": render.static("search.js"),
        "minisearch.js": render.static("vendor", "minisearch.js"),
        "minisearch-license.txt": render.static("vendor", "minisearch-LICENSE.txt"),
    }


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


@dataclass(frozen=True)
class _Read:
    """What the site is rendered from: the owner read, the catalog and every talk's row."""

    database_sha256: str
    catalog: Catalog
    rows: list[TalkRow]
    vault_root: Path
    identity: dict[str, tuple[IdentityNote, ...]] = field(default_factory=dict)
    goals: list[GoalView] = field(default_factory=list)
    feedback: CatalogFeedback | None = None
    stale: list[StaleEvidence] = field(default_factory=list)


def _read(request: SiteRequest, progress: Callable[[str], None]) -> _Read:
    read = read_database(request.db)
    catalog = load_catalog(request.catalog)
    vault_root = _vault_root(request)
    database = read.database or {}
    talks = [t for t in database.get("talks", []) if isinstance(t, dict)]
    roots = SourceRoots.from_config(vault_root, database.get("config"))
    progress(f"reading the evidence of {len(talks)} talks")
    decks = {
        record.get("pptx_path"): record
        for record in database.get("pptx_catalog", [])
        if isinstance(record, dict)
    }
    jobs = [
        (talk, roots, decks.get(talk.get("pptx_path")), talk.get("status") in ANALYSED_STATUSES)
        for talk in talks
    ]
    evidence = ordered_map(evidence_job, jobs)
    talks, ledger_notes = _set_aside_invalid_ledgers(talks, evidence)
    rows = build_rows(talks, evidence, catalog.fingerprint)
    identity = identity_notes(database, vault_root)
    for name, notes in ledger_notes.items():
        identity[name] = notes + identity.get(name, ())
    check = EvidenceCheck.of_database(vault_root, database)
    stale = [
        s for talk in talks if talk.get("status") in ANALYSED_STATUSES for s in check.stale(talk)
    ]
    for item in stale:
        note = IdentityNote("warning", item.code, item.message())
        identity[item.filename] = (*identity.get(item.filename, ()), note)
    pages = {row.filename: row.page for row in rows}
    return _Read(
        read.sha256 or "",
        catalog,
        rows,
        vault_root,
        identity,
        goals=goal_views(database, pages),
        feedback=catalog_feedback(
            request.returns, db=request.db, vault_root=vault_root, catalog=catalog, pages=pages
        ),
        stale=stale,
    )


@dataclass
class _Pages:
    bodies: dict[str, bytes]
    documents: list[Document]
    thumbnails: int = 0


def _talk_pages(
    request: SiteRequest, read: _Read, site: dict[str, Any], progress: Callable[[str], None]
) -> _Pages:
    """Every analysed talk's page (and its search documents when searching)."""
    feedback = read_feedback(request.returns)
    progress("rendering slide thumbnails")
    thumbnails = _thumbnail_jobs(read.rows, read.vault_root)
    scrubber = Scrubber(read.vault_root)
    out = _Pages({}, [])
    for row in read.rows:
        if row.page is None:
            continue
        thumbs = thumbnails.get(row.page)
        images = [_data_uri(png) for png in thumbs.pages] if thumbs else []
        out.thumbnails += len(images)
        lanes = feedback.for_receipt(row.receipt.payload_sha256 if row.receipt else None)
        note = _thumbnail_note(row, thumbs)
        page = talk_page(row, read.catalog, images, note, lanes, scrubber)
        page = replace(page, identity=read.identity.get(row.filename, ()))
        if request.search:
            out.documents.extend(talk_documents(page, thumbs.texts if thumbs else (), scrubber))
        out.bodies[row.page] = render.render("talk.html.j2", page=page, site=site)
        if len(out.bodies) % PROGRESS_EVERY == 0:
            progress(f"rendered {len(out.bodies)} talk pages")
    return out


def render_site(
    request: SiteRequest, progress: Callable[[str], None] = lambda _: None
) -> tuple[dict[str, bytes], dict[str, Any]]:
    """Every file of the site (name -> bytes) and the facts the report prints."""
    read = _read(request, progress)
    fingerprint = read.catalog.fingerprint
    site = {
        "catalog_fingerprint": fingerprint,
        "database_sha256": read.database_sha256,
        "talk_count": len(read.rows),
        "version": __version__,
    }
    pages = _talk_pages(request, read, site, progress)
    progress("drawing trend charts")
    drawn = charts.all_charts(read.rows, fingerprint)
    bodies: dict[str, bytes] = {chart.name: chart.svg for chart in drawn}
    bodies.update(pages.bodies)
    if request.search:
        progress(f"indexing {len(pages.documents)} search documents")
        bodies.update(_search_files(pages.documents))
    bodies["index.html"] = render.render(
        "index.html.j2",
        rows=read.rows,
        totals=totals(read.rows),
        charts=drawn,
        site=site,
        goals=read.goals,
        feedback=read.feedback,
        search=request.search,
    )
    bodies["style.css"] = render.static("style.css")
    manifest = {
        "catalog_fingerprint": fingerprint,
        "database_sha256": read.database_sha256,
        "files": {name: sha256_bytes(data) for name, data in sorted(bodies.items())},
        "schema_version": REPORT_VERSION,
    }
    bodies[MANIFEST] = artifact_bytes(manifest)
    facts = {
        "catalog_fingerprint": fingerprint,
        "chart_count": len(drawn),
        "database_sha256": read.database_sha256,
        "page_count": len(pages.bodies),
        "stale_evidence": [s.to_dict() for s in read.stale],
        "talk_count": len(read.rows),
        "thumbnail_count": pages.thumbnails,
    }
    return bodies, facts


def build_site(
    request: SiteRequest, progress: Callable[[str], None] = lambda _: None
) -> dict[str, Any]:
    """Render and install the site; the report ``rvault-analysis site`` prints."""
    check_output_directory(
        request.outdir, _vault_root(request), outside_vault=request.outside_vault
    )
    bodies, facts = render_site(request, progress)
    progress(f"installing {len(bodies)} files into {request.outdir}")
    installed = install_site(request.outdir, bodies)
    index = os.path.abspath(request.outdir / "index.html")  # noqa: PTH100 - lexical
    return {
        **facts,
        "durability_state": installed.report.durability_state,
        "file_count": len(bodies),
        "index": index,
        "ok": True,
        "outdir": os.path.abspath(request.outdir),  # noqa: PTH100
        "schema_version": REPORT_VERSION,
        "stale": list(installed.stale),
        "unchanged_count": installed.unchanged,
        "warnings": [
            *installed.report.warnings,
            *(StaleEvidence(**item).message() for item in facts["stale_evidence"]),
        ],
        "written": list(installed.written),
    }
