"""Stopping the server processes a test or a bench started."""

import subprocess


def stop_all(processes: list[subprocess.Popen], grace_seconds: float = 10) -> None:
    """Ask every process to stop, all at once so their shutdowns overlap, then kill
    those that have not stopped within the grace period."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=grace_seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
