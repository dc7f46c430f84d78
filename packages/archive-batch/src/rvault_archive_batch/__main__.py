from rvault_archive_batch.cli import main

raise SystemExit(main())
