"""One module per rvault-returns subcommand, each with ``register(subparsers)``.

``common`` holds the argument handling the subcommands share (database,
catalog, vault root); the work itself stays in the package's own modules.
"""
