import sys

from alias_spec.entry import main

sys.exit(main())
