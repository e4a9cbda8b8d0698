"""Clients that call the models playing in the arena (no Django in here)."""

from arena.clients.base import ModelCallError, ModelReply, RetryPolicy
from arena.clients.openai_compat import OpenAICompatibleClient

__all__ = ["ModelCallError", "ModelReply", "OpenAICompatibleClient", "RetryPolicy"]
