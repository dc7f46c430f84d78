from rvault_transcript.cli import main

raise SystemExit(main())
