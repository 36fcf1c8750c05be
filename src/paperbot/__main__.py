"""`python -m paperbot ...`"""

import sys

from paperbot.cli import main

sys.exit(main())
