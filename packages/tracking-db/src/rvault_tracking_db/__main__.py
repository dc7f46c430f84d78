from rvault_tracking_db.cli import main

raise SystemExit(main())
