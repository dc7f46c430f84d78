"""Shared test helpers for rhetoric-vault (dev-only)."""
