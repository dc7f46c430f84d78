"""The next action for each refusal of ``rvault-pptx`` that its call site names none for.

``console_main`` registers this table; ``rvault_contracts.cli.emit`` prints a
refusal's hint from it (see ``rvault_contracts.hints``).
"""

from __future__ import annotations

_RE_EXPORT = "re-export the deck as .pptx from PowerPoint or Keynote and pass that file"
_WORKER = "run the command again; if it repeats, run it on this one deck alone and report it"

HINTS: dict[str, str] = {
    "ambiguous_package": "the archive holds duplicate or case-clashing part names: " + _RE_EXPORT,
    "archive_limit_exceeded": "the deck exceeds the archive limits (members, sizes, ratio): "
    "remove embedded media from the deck or re-export it, then extract again",
    "empty_input": "the file is empty: pass the saved .pptx (check the copy or download)",
    "encrypted_package": "the deck is password-protected: save an unprotected copy and pass it",
    "exclusion_invalid": "fix the --exclude value: a path relative to the root directory",
    "input_missing": "check the path: no file exists there",
    "input_too_large": "the file exceeds the size limit: remove embedded video/audio from the "
    "deck and pass the smaller copy",
    "input_unreadable": "make the file readable by this user (permissions), then extract again",
    "inspected_pages_invalid": "write --inspected-pages as page numbers or ranges like 1-3,5",
    "not_a_presentation": "the package is not a PowerPoint presentation: pass the .pptx deck",
    "not_a_zip": "the file is not a .pptx (a ZIP package), e.g. a PDF renamed .pptx: pass a "
    "real .pptx, or give a PDF export to rvault-pptx probe-pdf",
    "output_directory_missing": "create the output's parent directory (mkdir -p) or pass "
    "--out inside an existing one",
    "output_is_input": "pass an --out path other than the input deck",
    "package_unreadable": "the package's parts cannot be read: " + _RE_EXPORT,
    "pdf_encrypted": "export the PDF again without a password, then probe it",
    "pdf_not_a_pdf": "pass the deck's PDF export (the file does not start with %PDF-)",
    "pdf_page_tree_incomplete": "the PDF's page tree is broken: export the PDF again",
    "pdf_repair_required": "the PDF needs repair: open and re-save (or export) it again",
    "pdf_too_many_pages": "the PDF has more pages than the limit: pass the deck's own export",
    "pdf_unreadable": "export the PDF again (the reader could not parse it)",
    "pptx_batch_protocol_mismatch": "reinstall rvault-pptx so the batch and its worker are "
    "the same version, then run the batch again",
    "pptx_batch_root_invalid": "pass an existing directory (not a symlink) as the batch root",
    "pptx_batch_worker_failed": "run rvault-pptx extract on the deck named by path alone to "
    "see its own refusal",
    "rendered_page_count_mismatch": "inspect the rendering named by path: its page count must "
    "equal the deck's slide count (export all slides, hidden ones included)",
    "structural_member_corrupt": "a required part of the package is corrupt: " + _RE_EXPORT,
    "truncated_archive": "the file is cut short (interrupted copy or download): copy it again",
    "unsafe_member_name": "the archive has unsafe member names: " + _RE_EXPORT,
    "worker_failed": _WORKER,
    "worker_monitor_unavailable": "install the pinned psutil the message names (bash "
    "tools/bootstrap.sh, or pip install with tools/constraints.txt), then extract again",
    "worker_protocol_mismatch": "reinstall rvault-pptx so the CLI and its worker match",
    "worker_resource_limit": "the deck needed more memory/time than the worker limit: remove "
    "large embedded media from the deck, then extract again",
    "worker_timeout": "the deck took longer than the worker limit: " + _WORKER,
    "xml_dtd_refused": "the package's XML declares a DTD (refused for safety): " + _RE_EXPORT,
}
