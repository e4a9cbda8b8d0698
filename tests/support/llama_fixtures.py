"""Pytest fixtures for the real model server (registered by tests/conftest.py's pytest_plugins)."""

import pytest

from tests.support.llama_server import LlamaServer


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """One llama-server for the whole session (it starts in well under a second, but the
    first use on a machine builds the binary). A failure to build or start it is an error,
    never a skip: a suite that silently stopped testing against a real server is the
    situation this server exists to end."""
    with LlamaServer.start(log_dir=tmp_path_factory.mktemp("llama-server")) as server:
        yield server
