"""``python app.py``: the command from the README, its defaults and the self-signed certificate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.app.conftest import ROOT, read_qr, start_server, stop_server
from webapp.certs import ensure_certificate


def _listening_addresses(port: int) -> set[str]:
    """Local addresses listening on ``port`` (from /proc/net/tcp*, so nothing is sent anywhere)."""
    found = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            local, state = fields[1], fields[3]
            address, port_hex = local.split(":")
            if state == "0A" and int(port_hex, 16) == port:  # 0A = LISTEN
                found.add(address)
    return found


def test_help_names_the_options() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "app.py"), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for option in ("--host", "--port", "--https", "--db"):
        assert option in result.stdout


def test_default_binds_loopback_only_and_serves_page_and_api(tmp_path: Path) -> None:
    if not Path("/proc/net/tcp").exists():
        pytest.skip("needs /proc/net/tcp (Linux) to see which address the server listens on")
    server = start_server(tmp_path, "--no-models")
    try:
        port = int(server.url.rsplit(":", 1)[1])
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, nothing else
        page = httpx.get(server.url + "/", timeout=10)
        assert page.status_code == 200 and "capture=\"environment\"" in page.text
        health = httpx.get(server.url + "/api/health", timeout=10).json()
        assert health["models_loaded"] is False and health["https"] is False
        created = httpx.post(server.url + "/api/matches", json={"players": ["Ana", "Ben"]}, timeout=10)
        assert created.status_code == 201
    finally:
        stop_server(server)
    assert (tmp_path / "live.db").exists()  # --db PATH
    log = server.log.read_text()
    assert "127.0.0.1" in log and "--host 0.0.0.0" in log  # it tells how to let a phone in


def test_https_serves_with_a_self_signed_certificate(tmp_path: Path) -> None:
    server = start_server(tmp_path, "--https", "--no-models", "--cert-dir", str(tmp_path / "cert"), scheme="https")
    try:
        assert server.url.startswith("https://")
        assert httpx.get(server.url + "/api/health", verify=False, timeout=10).json()["https"] is True
        with pytest.raises(httpx.ConnectError):
            httpx.get(server.url + "/api/health", timeout=10)  # self-signed: not trusted by default
    finally:
        stop_server(server)


def _subject_alt_names(cert_path: Path) -> tuple[list[str], list[str]]:
    """DNS names and IP addresses of a certificate (with cryptography, else the openssl command)."""
    try:
        from cryptography import x509
    except ImportError:
        text = subprocess.run(["openssl", "x509", "-noout", "-text", "-in", str(cert_path)], capture_output=True,
                              text=True, check=True).stdout
        entries = [e.strip() for e in text.split("X509v3 Subject Alternative Name:")[1].splitlines()[1].split(",")]
        return ([e[4:] for e in entries if e.startswith("DNS:")],
                [e[11:] for e in entries if e.startswith("IP Address:")])
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return names.get_values_for_type(x509.DNSName), [str(a) for a in names.get_values_for_type(x509.IPAddress)]


def test_certificate_names_and_reuse(tmp_path: Path) -> None:
    cert_path, key_path = ensure_certificate(tmp_path, hosts=["192.0.2.7", "table.local"])
    dns, ips = _subject_alt_names(cert_path)
    assert "localhost" in dns and "table.local" in dns
    assert "127.0.0.1" in ips and "192.0.2.7" in ips
    assert key_path.stat().st_mode & 0o077 == 0  # the key is private
    before = cert_path.read_bytes()
    ensure_certificate(tmp_path)
    assert cert_path.read_bytes() == before  # still valid: reused, so the phone's exception holds


def test_certificate_without_the_cryptography_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The openssl command stands in when the package is missing."""
    import shutil

    from webapp import certs

    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")

    def no_package(*args: object) -> None:
        raise ImportError("cryptography is not installed")

    monkeypatch.setattr(certs, "_make_with_cryptography", no_package)
    cert_path, _key = ensure_certificate(tmp_path, hosts=["table.local"])
    assert cert_path.read_text().startswith("-----BEGIN CERTIFICATE-----")
    dns, ips = _subject_alt_names(cert_path)
    assert "table.local" in dns and "127.0.0.1" in ips


def test_db_path_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    import app as app_module

    monkeypatch.setenv("RUMMIKUB_DB", str(tmp_path / "env.db"))
    with TestClient(app_module.create_app(app_module.Settings(load_models=False))) as c:
        assert c.post("/api/dice/sheets", json={"players": ["Ana"]}).status_code == 201
    assert (tmp_path / "env.db").exists()


def test_on_the_network_it_prints_the_lan_address_a_join_code_and_a_qr_code(tmp_path: Path) -> None:
    """Issue 15: ``--host 0.0.0.0`` printed only 127.0.0.1. Now the machine's LAN address, a join
    code and a QR code holding both; a phone without the code is refused, this computer is not."""
    from webapp.certs import lan_addresses

    lan = lan_addresses()
    if not lan:
        pytest.skip("this machine has no network address besides loopback")
    server = start_server(tmp_path, "--no-models", "--host", "0.0.0.0")
    try:
        port = server.url.rsplit(":", 1)[1]
        local = httpx.post(server.url + "/api/matches", json={"players": ["Ana", "Ben"]}, timeout=10)
        assert local.status_code == 201  # this computer writes as before
        phone = httpx.post(f"http://{lan[0]}:{port}/api/matches", json={"players": ["Cy", "Di"]}, timeout=10)
        assert phone.status_code == 403  # the same request from the LAN address, without the code
        share = httpx.get(server.url + "/api/join/share", timeout=10).json()
    finally:
        stop_server(server)
    log = server.log.read_text()
    assert f"http://{lan[0]}:{port}/" in log
    assert share["code"] in log and share["url"] == f"http://{lan[0]}:{port}/?join=" + share["url"].split("=", 1)[1]
    assert _decode_terminal_qr(log) == share["url"]  # the QR code printed in the terminal: one scan


def _decode_terminal_qr(log: str) -> str:
    """The text of the QR code drawn with block characters in ``log`` (two rows of modules per
    line, as on a dark terminal: a block is light, a space dark), read by OpenCV's QR decoder."""
    import cv2
    import numpy as np

    lines = [line for line in log.splitlines() if line and set(line) <= set("█▀▄ ")]
    light = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0)}
    rows = []
    for line in lines:
        pairs = [light[c] for c in line]
        rows += [[p[0] for p in pairs], [p[1] for p in pairs]]
    modules = np.array(rows, dtype=np.uint8) * 255
    return read_qr(cv2.resize(modules, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST))
