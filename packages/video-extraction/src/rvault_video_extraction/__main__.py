from rvault_video_extraction.cli import main

raise SystemExit(main())
