"""``python -m kgqa.worker``: what a kgqa command starts in the background (see kgqa.worker.service)."""

import sys

from kgqa.worker.service import main

sys.exit(main())
