"""The allocator thresholds of workers and web processes (arena.runtime.memory): set on glibc, skipped where
the C library has no mallopt."""

import ctypes.util
import platform

import pytest

from arena.runtime import memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_takes_the_thresholds():
    assert memory.keep_freed_memory() is True


def test_without_a_c_library_nothing_is_set(monkeypatch):
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert memory.keep_freed_memory() is False


def test_a_c_library_without_mallopt_is_left_alone(monkeypatch):
    class NoMallopt:
        def __init__(self, name):
            pass

    monkeypatch.setattr(memory.ctypes, "CDLL", NoMallopt)
    assert memory.keep_freed_memory() is False
