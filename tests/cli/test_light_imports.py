"""The commands that only read (a run's logs, its stats, the map, a screenshot's reading) never import the anthropic
SDK: it takes 2-3 s a process to import, which `lluma logs` and `lluma --help` paid for nothing (3.5-3.9 s each)."""

from __future__ import annotations

import subprocess
import sys

import pytest

READERS = ["lluma_cli.main", "lluma_cli.logs", "lluma_cli.stats", "lluma_cli.search", "lluma_cli.report.page",
           "lluma_cli.memory", "lluma_cli.map", "lluma_cli.events", "lluma_cli.knowledge", "lluma_cli.models",
           "lluma_cli.vision", "lluma_cli.doctor"]


@pytest.mark.parametrize("module", READERS)
def test_a_reading_command_does_not_import_the_sdk(module: str) -> None:
    code = f"import sys, {module}; print('anthropic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False", module


def test_the_commands_that_call_the_api_still_have_it() -> None:
    code = "import sys, lluma_cli.run, lluma_cli.demo; print('anthropic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "True"
