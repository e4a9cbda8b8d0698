"""Rendering a page whose context holds a board's thousand runs.

Django's template context is a reference cycle (each of its ContextDicts points back at
the Context), so whatever a page passes to its template outlives the response until the
cycle collector finds it: the front page left some 12,000 objects (its runs, rows and
cells) behind every request, the collector ran about once a request to free them, and
a run of the collector's older generation, holding the pages it had caught half-built,
took some 40 ms (bench/read_pages.py, p95). Taking the page's values out of the context
once the template has rendered breaks the cycle: reference counting frees them as the
view returns, and the collector has next to nothing to do.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.template import TemplateDoesNotExist
from django.template.backends.django import reraise
from django.template.context import make_context
from django.template.loader import get_template


def render_released(request, template_name: str, context: dict) -> HttpResponse:
    """django.shortcuts.render of a template of the project's Django engine, the same
    response byte for byte, with `context` taken out of the template's context after
    rendering (see the module's docstring)."""
    template = get_template(template_name)
    template_context = make_context(context, request, autoescape=template.backend.engine.autoescape)
    try:
        content = template.template.render(template_context)
    except TemplateDoesNotExist as exc:
        reraise(exc, template.backend)
    finally:
        # make_context pushed `context` last (after the builtins and the context
        # processors' place); popping it leaves the cycle without it.
        if context:
            template_context.pop()
    return HttpResponse(content)
