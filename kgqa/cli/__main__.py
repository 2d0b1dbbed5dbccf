"""``python -m kgqa.cli``: the command line as the ``kgqa`` script runs it."""

from kgqa.cli import main

main()
