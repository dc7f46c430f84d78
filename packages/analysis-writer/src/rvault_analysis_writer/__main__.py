from rvault_analysis_writer.cli import main

raise SystemExit(main())
