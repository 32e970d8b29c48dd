from classroom.cli import main

raise SystemExit(main())
