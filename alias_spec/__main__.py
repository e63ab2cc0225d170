import sys

from alias_spec.cli import main

sys.exit(main())
