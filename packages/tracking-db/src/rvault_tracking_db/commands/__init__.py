"""One module per rvault-db subcommand, each with register(subparsers)."""
