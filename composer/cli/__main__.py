"""``python -m composer.cli``: the ``compose`` command."""

import sys

from composer.cli.main import main

sys.exit(main())
