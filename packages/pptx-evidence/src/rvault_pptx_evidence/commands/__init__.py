"""Subcommands of ``rvault-pptx``; each module exposes ``register(subparsers)``."""
