"""A Django process that calls no model (a management command, `manage.py shell`) starts
without the openai SDK, about 1.5 s of a start on a loaded machine; the client is
there when asked for."""

import json
import subprocess
import sys

from tests.support.worker_process import ROOT, Arena

REPORT = """
import json, sys
loaded_at_start = "openai" in sys.modules
from arena.clients import OpenAICompatibleClient
print(json.dumps([loaded_at_start, OpenAICompatibleClient.__module__, "openai" in sys.modules]))
"""


def test_a_command_starts_without_the_sdk_and_gets_the_client_when_it_asks():
    arena = Arena()
    try:
        done = subprocess.run([sys.executable, "manage.py", "shell", "-c", REPORT], cwd=ROOT, env=arena.env,
                              capture_output=True, text=True, timeout=180)
    finally:
        arena.close()
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [False, "arena.clients.openai_compat", True]
