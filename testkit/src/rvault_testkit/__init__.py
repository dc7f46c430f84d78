"""Shared test helpers for rhetoric-vault (dev-only).

``plugin`` holds the pytest fixtures every package shares; ``tracking_db``,
``pptx_evidence`` and ``video_extraction`` hold each owner's generated test
data, kept out of the runtime wheels (CONTRIBUTING.md, "Test data is not
runtime code").
"""
