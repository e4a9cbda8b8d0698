"""Clients that call the models playing in the arena (no Django in here).

The OpenAI-compatible client is imported on first use: it loads the openai SDK (about
1.5 s of a process's start on a loaded machine), and every Django process imports this
package (arena.models reads the reasoning parameters, arena.clients.reasoning_params),
the web processes and management commands too, which never call a model."""

from arena.clients.base import ModelCallError, ModelReply, RetryPolicy

__all__ = ["ModelCallError", "ModelReply", "OpenAICompatibleClient", "RetryPolicy"]


def __getattr__(name: str):
    if name == "OpenAICompatibleClient":
        from arena.clients.openai_compat import OpenAICompatibleClient

        return OpenAICompatibleClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
