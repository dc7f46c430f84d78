"""The refusal, error and issue codes of ``rvault-pptx``, each with its next action.

How a declaration is used (default hints, the README table, the guard tests):
``rvault_contracts.codes``. A code shared by every tool is declared there; one
repeated here gives it this tool's own hint.
"""

from __future__ import annotations

from rvault_contracts.codes import ERROR, ISSUE, declare, issue, refusal

_RE_EXPORT = "re-export the deck as .pptx from PowerPoint or Keynote and pass that file"
_WORKER = "run the command again; if it repeats, run it on this one deck alone and report it"

CODES = declare(
    # Refusals: a ``cli-failure`` document, exit 2.
    refusal(
        "ambiguous_package",
        "the archive holds duplicate or case-clashing part names: " + _RE_EXPORT,
    ),
    refusal(
        "archive_limit_exceeded",
        "the deck exceeds the archive limits (members, sizes, ratio): "
        "remove embedded media from the deck or re-export it, then extract again",
    ),
    refusal("empty_input", "the file is empty: pass the saved .pptx (check the copy or download)"),
    refusal(
        "encrypted_package", "the deck is password-protected: save an unprotected copy and pass it"
    ),
    refusal("exclusion_invalid", "fix the --exclude value: a path relative to the root directory"),
    refusal("input_missing", "check the path: no file exists there"),
    refusal(
        "input_too_large",
        "the file exceeds the size limit: remove embedded video/audio from the "
        "deck and pass the smaller copy",
    ),
    refusal(
        "input_unreadable", "make the file readable by this user (permissions), then extract again"
    ),
    refusal(
        "inspected_pages_invalid", "write --inspected-pages as page numbers or ranges like 1-3,5"
    ),
    refusal(
        "not_a_presentation", "the package is not a PowerPoint presentation: pass the .pptx deck"
    ),
    refusal(
        "not_a_zip",
        "the file is not a .pptx (a ZIP package), e.g. a PDF renamed .pptx: pass a "
        "real .pptx, or give a PDF export to rvault-pptx probe-pdf",
    ),
    refusal(
        "output_directory_missing",
        "create the output's parent directory (mkdir -p) or pass --out inside an existing one",
    ),
    refusal("output_is_input", "pass an --out path other than the input deck"),
    refusal("package_unreadable", "the package's parts cannot be read: " + _RE_EXPORT),
    refusal("pdf_encrypted", "export the PDF again without a password, then probe it"),
    refusal("pdf_not_a_pdf", "pass the deck's PDF export (the file does not start with %PDF-)"),
    refusal("pdf_page_tree_incomplete", "the PDF's page tree is broken: export the PDF again"),
    refusal("pdf_repair_required", "the PDF needs repair: open and re-save (or export) it again"),
    refusal(
        "pdf_too_many_pages", "the PDF has more pages than the limit: pass the deck's own export"
    ),
    refusal("pdf_unreadable", "export the PDF again (the reader could not parse it)"),
    refusal(
        "pptx_batch_protocol_mismatch",
        "reinstall rvault-pptx so the batch and its worker are "
        "the same version, then run the batch again",
        also=ISSUE,
    ),
    refusal(
        "pptx_batch_root_invalid", "pass an existing directory (not a symlink) as the batch root"
    ),
    refusal(
        "pptx_batch_worker_failed",
        "run rvault-pptx extract on the deck named by path alone to see its own refusal",
        also=ISSUE,
    ),
    refusal(
        "rendered_page_count_mismatch",
        "inspect the rendering named by path: its page count must "
        "equal the deck's slide count (export all slides, hidden ones included)",
    ),
    refusal(
        "structural_member_corrupt", "a required part of the package is corrupt: " + _RE_EXPORT
    ),
    refusal(
        "truncated_archive", "the file is cut short (interrupted copy or download): copy it again"
    ),
    refusal("unsafe_member_name", "the archive has unsafe member names: " + _RE_EXPORT),
    refusal("worker_failed", _WORKER, also=ERROR),
    refusal(
        "worker_monitor_unavailable",
        "install the pinned psutil the message names (bash "
        "tools/bootstrap.sh, or pip install with tools/constraints.txt), then extract again",
    ),
    refusal("worker_protocol_mismatch", "reinstall rvault-pptx so the CLI and its worker match"),
    refusal(
        "worker_resource_limit",
        "the deck needed more memory/time than the worker limit: remove "
        "large embedded media from the deck, then extract again",
    ),
    refusal("worker_timeout", "the deck took longer than the worker limit: " + _WORKER, also=ERROR),
    refusal(
        "xml_dtd_refused", "the package's XML declares a DTD (refused for safety): " + _RE_EXPORT
    ),
    # Issues: an entry of a report or of a reader's status.
    issue("batch_complete_mismatch"),
    issue("batch_evidence_below_exclusion"),
    issue("batch_exclusion_unfounded"),
    issue("batch_path_not_canonical"),
    issue("batch_reason_codes_mismatch"),
    issue("batch_reason_invalid"),
    issue("batch_skip_nested"),
    issue("binding_corrupt_asset_unbound"),
    issue("binding_corrupt_assets"),
    issue("binding_ocr_receipt"),
    issue("binding_recovered_asset_available"),
    issue("binding_render_reasons"),
    issue("binding_slide_count"),
    issue("binding_slide_number"),
    issue("binding_slide_part_name"),
    issue("binding_timing_provenance"),
    issue("native_deck_audit_mismatch"),
    issue("native_deck_audit_obsolete"),
    issue("pptx_batch_deadline"),
    issue("pptx_batch_deck_refused"),
    issue("pptx_batch_depth_limit"),
    issue("pptx_batch_directory_excluded"),
    issue("pptx_batch_directory_unreadable"),
    issue("pptx_batch_entry_limit"),
    issue("pptx_batch_file_limit"),
    issue("pptx_batch_lock_file"),
    issue("pptx_batch_name_invalid"),
    issue("pptx_batch_special_file"),
    issue("pptx_batch_symlink_refused"),
    issue("rendered_page_inspection_invalid"),
    issue("rendered_pdf_mismatch"),
)

HINTS: dict[str, str] = CODES.hints()
