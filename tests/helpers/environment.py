"""The settings every test's configuration starts from where a test builds one itself (``env=QUIET``), beside the
environment tests/conftest.py sets for commands: a load trains no question reader unless the test asks for one
(training takes about a minute even on the STaRK fixture, and a trained reader moves the answers tests expect)."""

from __future__ import annotations

QUIET: dict[str, str] = {"KGQA_READER_ON_LOAD": "false"}
