"""The outbound URL guard: syntactic checks, address classes, and connect-time pinning."""

from __future__ import annotations

import ipaddress

import httpx2
import pytest

from arena.clients.urlguard import GuardedTransport, UnsafeURL, address_problem, check_url
from tests.support.fake_openai import FakeOpenAIServer

PUBLIC_V4 = "93.184.215.14"
PUBLIC_V4_B = "93.184.215.15"


# --- check_url: schemes and syntax -------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://example.com/v1", "gopher://example.com:70/", "javascript:alert(1)", "ws://example.com/"],
)
def test_only_http_and_https(url):
    with pytest.raises(UnsafeURL, match="Only http and https URLs are allowed"):
        check_url(url, allow_loopback=True)


@pytest.mark.parametrize(
    "url, message",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("http:///v1", "no host"),
        ("http://user:pass@example.com/v1", "user name or password"),
        ("https://token@example.com/v1", "user name or password"),
        ("http://example .com/v1", "spaces"),
        ("http://0177.0.0.1/v1", "Invalid IPv4"),  # dotted octal (127.0.0.1 to inet_aton)
    ],
)
def test_syntax_refusals(url, message):
    with pytest.raises(UnsafeURL, match=message):
        check_url(url, allow_loopback=True)


def test_unsafe_url_is_a_value_error():
    assert issubclass(UnsafeURL, ValueError)


# --- check_url: address classes ------------------------------------------------------------


@pytest.mark.parametrize(
    "url, what",
    [
        ("http://127.0.0.1:8000/v1", "loopback"),
        ("http://127.1/v1", "loopback"),  # glibc-style shorthand still resolves to 127.0.0.1
        ("http://2130706433/v1", "loopback"),  # decimal form of 127.0.0.1
        ("http://0x7f000001/v1", "loopback"),  # hexadecimal form of 127.0.0.1
        ("http://0x7f.1/v1", "loopback"),  # hexadecimal shorthand
        ("http://017700000001/v1", "loopback"),  # octal form of 127.0.0.1
        ("http://0xa9fea9fe/latest", "link-local"),  # the metadata address in hexadecimal
        ("http://[::1]:8000/v1", "loopback"),
        ("http://10.1.2.3/v1", "private"),
        ("http://192.168.1.10/v1", "private"),
        ("http://172.16.0.1/v1", "private"),
        ("http://172.31.255.254/v1", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://100.64.0.1/v1", "carrier-grade NAT"),
        ("http://0.0.0.0:8000/v1", "unspecified"),
        ("http://[::]/v1", "unspecified"),
        ("http://224.0.0.1/", "multicast"),
        ("http://[ff02::1]/", "multicast"),
        ("http://255.255.255.255/", "broadcast"),
        ("http://240.0.0.1/", "reserved"),
        ("http://198.18.0.1/", "benchmarking"),
        ("http://192.0.2.1/", "documentation"),
        ("http://[fe80::1]/v1", "link-local"),
        ("http://[fc00::1]/v1", "private"),
        ("http://[fd12:3456::1]/v1", "private"),
        ("http://[fec0::1]/v1", "site-local"),
        ("http://[::ffff:10.0.0.1]/v1", "IPv4-mapped form of 10.0.0.1, a private"),
        ("http://[::ffff:127.0.0.1]/v1", "IPv4-mapped form of 127.0.0.1, a loopback"),
        ("http://[::ffff:169.254.169.254]/v1", "link-local"),
        ("http://[::a00:1]/v1", "IPv4-compatible"),
        ("http://[2002:a00:1::1]/v1", "6to4 address embedding 10.0.0.1"),
        ("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/v1", "Teredo"),
        ("http://[64:ff9b::a9fe:a9fe]/v1", "NAT64 address embedding 169.254.169.254"),
    ],
)
def test_non_public_addresses_are_refused(url, what):
    with pytest.raises(UnsafeURL, match=what) as info:
        check_url(url, allow_loopback=False)
    assert "public addresses" in str(info.value)


@pytest.mark.parametrize(
    "url",
    [
        "http://8.8.8.8/v1",
        "https://1.1.1.1:8443/v1",
        "https://[2606:4700:4700::1111]/v1",
        "http://[::ffff:8.8.8.8]/v1",  # mapped, but the embedded address is public
        "http://[64:ff9b::808:808]/v1",  # NAT64 of a public address
    ],
)
def test_public_literals_pass(url):
    check_url(url, allow_loopback=False)


def test_hostname_resolving_to_private_address(fake_dns):
    fake_dns("example.internal", ["10.0.0.5"])
    with pytest.raises(UnsafeURL) as info:
        check_url("https://example.internal/v1", allow_loopback=False)
    assert str(info.value) == (
        "example.internal resolves to 10.0.0.5, a private address; the arena only calls public addresses"
    )


def test_every_resolved_address_is_checked(fake_dns):
    fake_dns("mixed.example", [PUBLIC_V4, "192.168.0.7"])
    with pytest.raises(UnsafeURL, match="192.168.0.7"):
        check_url("https://mixed.example/v1", allow_loopback=False)


def test_public_hostname_passes(fake_dns):
    fake_dns("api.example.com", [PUBLIC_V4, "2606:2800:21f:cb07:6820:80da:af6b:8b2c"])
    check_url("https://api.example.com/v1", allow_loopback=False)


def test_localhost_refused(fake_dns):
    fake_dns("localhost", ["127.0.0.1", "::1"])
    with pytest.raises(UnsafeURL, match="localhost resolves to 127.0.0.1, a loopback address"):
        check_url("http://localhost:11434/v1", allow_loopback=False)


def test_unresolvable_host(fake_dns):
    fake_dns("nowhere.example", [])
    with pytest.raises(UnsafeURL, match="Could not resolve"):
        check_url("https://nowhere.example/v1", allow_loopback=False)


# --- allow_loopback ------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "http://127.5.6.7/v1", "http://[::1]:8000/v1"])
def test_allow_loopback_permits_loopback(url):
    check_url(url, allow_loopback=True)


def test_allow_loopback_permits_localhost(fake_dns):
    fake_dns("localhost", ["127.0.0.1", "::1"])
    check_url("http://localhost:11434/v1", allow_loopback=True)


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/v1",
        "http://192.168.0.1/v1",
        "http://169.254.169.254/",
        "http://0.0.0.0/v1",
        "http://[::ffff:10.0.0.1]/v1",
        "http://[fe80::1]/v1",
        "http://[2002:7f00:1::1]/v1",  # 6to4 wrapping 127.0.0.1 is not loopback
    ],
)
def test_allow_loopback_permits_nothing_else(url):
    with pytest.raises(UnsafeURL):
        check_url(url, allow_loopback=True)


def test_address_problem_direct():
    assert address_problem(ipaddress.ip_address("8.8.8.8")) is None
    assert address_problem(ipaddress.ip_address("127.0.0.1")) == "a loopback address"
    assert address_problem(ipaddress.ip_address("127.0.0.1"), allow_loopback=True) is None
    assert address_problem(ipaddress.ip_address("fe80::1%eth0")) == "a link-local address"


# --- connect-time enforcement --------------------------------------------------------------


@pytest.mark.asyncio
async def test_transport_refuses_when_dns_changes_after_the_check(fake_dns):
    """DNS rebinding: public at validation time, loopback when the call is made."""
    with FakeOpenAIServer() as server:
        fake_dns("rebind.example", [PUBLIC_V4], ["127.0.0.1"])
        url = f"http://rebind.example:{server.port}/v1/chat/completions"
        check_url(url, allow_loopback=False)  # the form would accept it

        async with httpx2.AsyncClient(transport=GuardedTransport(allow_loopback=False)) as client:
            with pytest.raises(UnsafeURL, match="rebind.example resolves to 127.0.0.1, a loopback address"):
                await client.post(url, json={})
        assert server.requests == []  # nothing reached the loopback server


@pytest.mark.asyncio
async def test_transport_refuses_metadata_literal_without_connecting():
    made = []

    def factory(**kwargs):
        made.append(kwargs)
        return httpx2.MockTransport(lambda request: httpx2.Response(200))

    transport = GuardedTransport(allow_loopback=True, transport_factory=factory)
    async with httpx2.AsyncClient(transport=transport) as client:
        with pytest.raises(UnsafeURL, match="169.254.169.254 is a link-local address"):
            await client.get("http://169.254.169.254/latest/meta-data/")
        with pytest.raises(UnsafeURL, match="Only http and https"):
            await transport.handle_async_request(httpx2.Request("GET", "ftp://example.com/"))
    assert made == []


@pytest.mark.asyncio
async def test_transport_connects_to_checked_ip_keeping_host_header(fake_dns):
    with FakeOpenAIServer() as server:
        fake_dns("model.test", ["127.0.0.1"])
        async with httpx2.AsyncClient(transport=GuardedTransport(allow_loopback=True)) as client:
            response = await client.post(
                f"http://model.test:{server.port}/v1/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            )
        assert response.status_code == 200
        assert response.request.url.host == "model.test"  # the caller's view is unchanged
        assert server.requests[0].headers["host"] == f"model.test:{server.port}"


class _Connections:
    """Stands for the guard's aiohttp pool of one origin (its `fetch`): what each request
    would have been sent as, answered by `answer(url)` (an httpx2 response, or raises)."""

    def __init__(self, answer, sent: list) -> None:
        self._answer, self._sent = answer, sent

    async def fetch(self, head, url, headers, body, timeout, on_head, request=None):
        self._sent.append((str(url), dict((name.lower(), value) for name, value in headers), head.sni))
        response = self._answer(url)

        class _Answered:
            def as_httpx(self, request):
                return httpx2.Response(response.status_code, content=response.content, request=request)

        return _Answered()

    async def aclose(self) -> None:
        pass


@pytest.mark.asyncio
async def test_https_keeps_sni_and_host_for_the_original_name(fake_dns):
    sent: list = []
    fake_dns("api.example.com", [PUBLIC_V4], ["127.0.0.1"])
    transport = GuardedTransport(
        allow_loopback=False,
        transport_factory=lambda **kw: _Connections(lambda url: httpx2.Response(200, json={}), sent),
    )
    async with httpx2.AsyncClient(transport=transport) as client:
        await client.get("https://api.example.com/v1/models")
        # resolved again for the next request, and refused this time
        with pytest.raises(UnsafeURL):
            await client.get("https://api.example.com/v1/models")

    assert len(sent) == 1
    url, headers, sni = sent[0]
    assert url == f"https://{PUBLIC_V4}/v1/models"
    assert headers["host"] == "api.example.com"
    assert sni == "api.example.com"


@pytest.mark.asyncio
async def test_transport_tries_the_next_checked_address(fake_dns):
    sent: list = []

    def answer(url) -> httpx2.Response:
        if url.host == PUBLIC_V4:
            raise httpx2.ConnectError("connection refused")
        return httpx2.Response(200, json={"ok": True})

    fake_dns("two.example", [PUBLIC_V4, PUBLIC_V4_B])
    transport = GuardedTransport(transport_factory=lambda **kw: _Connections(answer, sent))
    async with httpx2.AsyncClient(transport=transport) as client:
        response = await client.get("http://two.example/")
    assert response.json() == {"ok": True}
    assert [url for url, _, _ in sent] == [f"http://{PUBLIC_V4}/", f"http://{PUBLIC_V4_B}/"]


@pytest.mark.asyncio
async def test_transport_unresolvable_host_is_a_connect_error(fake_dns):
    fake_dns("gone.example", [])
    async with httpx2.AsyncClient(transport=GuardedTransport()) as client:
        with pytest.raises(httpx2.ConnectError, match="Could not resolve gone.example"):
            await client.get("http://gone.example/")


# --- TLS: the certificate is verified for the original name, not the pinned IP -----------


def _self_signed(tmp_path, name: str) -> tuple[str, str]:
    """A throwaway certificate for `name` (also its own trust anchor): (cert, key) paths."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return str(cert_path), str(key_path)


@pytest.fixture
def tls_server(tmp_path):
    """An HTTPS server on 127.0.0.1 presenting a certificate for model.test; it records
    the SNI names clients send."""
    import ssl
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    pytest.importorskip("cryptography")
    cert, key = _self_signed(tmp_path, "model.test")
    sni_seen: list[str | None] = []

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sslsock, name, ctx: sni_seen.append(name)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            payload = self.headers.get("Host", "").encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    class TLSServer(ThreadingHTTPServer):
        daemon_threads = True

        def get_request(self):
            sock, address = super().get_request()
            return context.wrap_socket(sock, server_side=True), address

        def handle_error(self, request, client_address):
            pass  # failed handshakes are expected in the negative test

    httpd = TLSServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1], cert, sni_seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.mark.asyncio
async def test_tls_verifies_the_original_host_name(fake_dns, tls_server):
    import ssl

    port, cert, sni_seen = tls_server
    fake_dns("model.test", ["127.0.0.1"])
    fake_dns("other.test", ["127.0.0.1"])
    trust = ssl.create_default_context(cafile=cert)

    transport = GuardedTransport(allow_loopback=True, verify=trust)
    async with httpx2.AsyncClient(transport=transport) as client:
        response = await client.get(f"https://model.test:{port}/")
        assert response.status_code == 200
        assert response.text == f"model.test:{port}"  # the Host header the server saw
        assert sni_seen[-1] == "model.test"

        # Same IP, but the certificate is not valid for this name: refused.
        with pytest.raises(httpx2.ConnectError, match="(?i)certificate|hostname"):
            await client.get(f"https://other.test:{port}/")


@pytest.mark.asyncio
async def test_without_verify_given_https_still_refuses_a_certificate_nobody_trusts(fake_dns, tls_server):
    """The shared TLS context is built only for an https origin; that origin is verified
    against the CA bundle all the same."""
    port, _cert, _sni = tls_server
    fake_dns("model.test", ["127.0.0.1"])
    async with httpx2.AsyncClient(transport=GuardedTransport(allow_loopback=True)) as client:
        with pytest.raises(httpx2.ConnectError, match="(?i)certificate"):
            await client.get(f"https://model.test:{port}/")


@pytest.mark.asyncio
async def test_a_plain_http_model_server_never_loads_the_ca_bundle(fake_dns):
    """Loading the CA bundle takes ~0.2 s of CPU on the event loop: a worker whose first
    model call goes to a local http server must not pay it, holding every episode."""
    from arena.clients.urlguard import shared_ssl_context

    shared_ssl_context.cache_clear()
    with FakeOpenAIServer() as server:
        async with httpx2.AsyncClient(transport=GuardedTransport(allow_loopback=True)) as client:
            response = await client.post(f"{server.base_url}/chat/completions",
                                         json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code == 200
    assert shared_ssl_context.cache_info().currsize == 0
