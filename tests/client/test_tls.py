"""TLS verification is on by default, and a CA bundle lets a self-hosted service be trusted.

A real HTTPS server on loopback presents a certificate signed by no public authority.
"""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from api_client import NO_RETRIES, ApiClient, ApiConnectionError
from tests.client.samples import TOKEN


class _PlansHandler(BaseHTTPRequestHandler):
    seen_authorization: ClassVar[list[str | None]] = []

    def do_GET(self) -> None:
        type(self).seen_authorization.append(self.headers.get("Authorization"))
        body = json.dumps([]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Silence the default stderr log."""


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("openssl is needed to make a test certificate (apt-get install openssl)")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(key), "-out", str(cert),
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture(scope="module")
def https_service(self_signed: tuple[Path, Path]) -> Iterator[str]:
    cert, key = self_signed
    server = ThreadingHTTPServer(("127.0.0.1", 0), _PlansHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}/Api"
    server.shutdown()
    server.server_close()


def test_an_untrusted_certificate_is_refused_by_default_and_no_token_is_sent(
    https_service: str,
) -> None:
    _PlansHandler.seen_authorization.clear()
    with (
        ApiClient(
            base_url=https_service, token=TOKEN, company_id=1, retry_policy=NO_RETRIES
        ) as client,
        pytest.raises(ApiConnectionError, match="CERTIFICATE_VERIFY_FAILED"),
    ):
        client.plans()

    assert _PlansHandler.seen_authorization == []


def test_a_ca_bundle_makes_a_self_hosted_service_trusted(
    https_service: str, self_signed: tuple[Path, Path]
) -> None:
    cert, _ = self_signed
    _PlansHandler.seen_authorization.clear()
    with ApiClient(base_url=https_service, token=TOKEN, company_id=1, verify=str(cert)) as client:
        assert client.plans() == []

    assert _PlansHandler.seen_authorization == [f"Bearer {TOKEN}"]
