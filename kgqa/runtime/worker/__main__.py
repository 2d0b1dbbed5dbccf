"""``python -m kgqa.runtime.worker``: what a kgqa command starts in the background (see kgqa.runtime.worker.service)."""

import sys

from kgqa.runtime.worker.service import main

sys.exit(main())
