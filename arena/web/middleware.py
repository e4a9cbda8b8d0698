"""A strict Content-Security-Policy: model output is untrusted text (docs/design.md §5)."""

from urllib.parse import urlsplit

from django.conf import settings


def websocket_origin(public_url: str) -> str:
    """The site's own websocket origin (wss:// for an https:// site), from ARENA_PUBLIC_URL."""
    parts = urlsplit(public_url)
    return f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}"


def content_security_policy(public_url: str) -> str:
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            # plotly.js sets inline styles on the elements it draws.
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            # The live pages' websockets go to this site only: 'self' covers the page's own
            # host in CSP 3 browsers; the origin is named too for those that predate it.
            f"connect-src 'self' {websocket_origin(public_url)}",
            "object-src 'none'",
            "base-uri 'self'",
            "frame-ancestors 'none'",
            "form-action 'self'",
        ]
    )


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.policy = content_security_policy(settings.ARENA_PUBLIC_URL)

    def __call__(self, request):
        response = self.get_response(request)
        response.setdefault("Content-Security-Policy", self.policy)
        response.setdefault("X-Content-Type-Options", "nosniff")
        response.setdefault("Referrer-Policy", "same-origin")
        return response
