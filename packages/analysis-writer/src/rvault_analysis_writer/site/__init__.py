"""``rvault-analysis site``: a static HTML report of the whole vault.

The site is a view, never a source of truth: every fact on it is read from
the tracking-db owner read, the persisted effective talks, their
completed-claim receipts and the other owners' public ``api`` readers, and
the same inputs always give the same bytes. Renderers (leather for the
charts, PDFium for thumbnails) are imported only by the modules that draw,
so importing this package stays cheap.
"""
