"""One module per rvault-analysis subcommand, each with ``register(subparsers)``.

A module only builds the request of the function that does the work
(``write.write_analyses``, ``site.build.build_site``) and prints its report.
"""
