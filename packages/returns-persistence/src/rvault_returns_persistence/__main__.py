from rvault_returns_persistence.cli import main

raise SystemExit(main())
