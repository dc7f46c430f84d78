from rvault_pptx_evidence.cli import main

raise SystemExit(main())
