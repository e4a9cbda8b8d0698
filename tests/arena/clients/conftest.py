"""Fixtures of the client tests."""

from __future__ import annotations

import socket

import pytest


@pytest.fixture
def fake_dns(monkeypatch):
    """Answer getaddrinfo for chosen names; everything else goes to the real resolver.

    A name maps to a list of answers, each answer a list of addresses; successive
    lookups take successive answers (the last one repeats).
    """
    table: dict[str, list[list[str]]] = {}
    lookups: dict[str, int] = {}
    real = socket.getaddrinfo

    def fake(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name not in table:
            return real(host, port, *args, **kwargs)
        answers = table[name]
        index = lookups.get(name, 0)
        lookups[name] = index + 1
        addresses = answers[min(index, len(answers) - 1)]
        if not addresses:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        infos = []
        for address in addresses:
            if ":" in address:
                infos.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port or 0, 0, 0)))
            else:
                infos.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or 0)))
        return infos

    monkeypatch.setattr(socket, "getaddrinfo", fake)

    def add(name: str, *answers: list[str]) -> None:
        table[name] = list(answers)

    add.lookups = lookups
    return add
