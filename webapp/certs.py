"""A self-signed certificate for ``python app.py --https``, so a phone on the LAN gets live camera mode.

Browsers give ``getUserMedia`` (the live camera) only to secure pages: HTTPS or localhost. A
self-signed certificate makes the page secure once the player accepts the browser's warning.
Made with the ``cryptography`` package, or with the ``openssl`` command when that is missing.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import shutil
import socket
import subprocess
from pathlib import Path

__all__ = ["ensure_certificate", "lan_addresses"]


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (what a phone on the LAN would type).

    Found from the host's own name, then from the routing table: a UDP socket "connected" to an
    address of each private range picks the interface the system would use, and sends nothing
    (UDP has no handshake; no packet leaves before a send). The host name alone often resolves to
    127.0.1.1 only (Debian), which printed no LAN address at all (issue 15).
    """
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(str(info[4][0]))
    except OSError:
        pass
    for probe in ("192.168.255.254", "10.255.255.254", "172.31.255.254"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                found.add(str(s.getsockname()[0]))
        except OSError:
            pass  # no route to that range
    return sorted(a for a in found if not a.startswith("127.") and a != "0.0.0.0")


def ensure_certificate(folder: Path, hosts: list[str] | None = None, days: int = 825) -> tuple[Path, Path]:
    """``(cert.pem, key.pem)`` in ``folder``, made once and reused while still valid."""
    folder.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    if cert_path.exists() and key_path.exists() and _still_valid(cert_path):
        return cert_path, key_path
    names = sorted({"localhost", "127.0.0.1", socket.gethostname(), *(hosts or []), *lan_addresses()})
    try:
        _make_with_cryptography(cert_path, key_path, names, days)
    except ImportError:
        _make_with_openssl(cert_path, key_path, names, days)
    key_path.chmod(0o600)
    return cert_path, key_path


def _still_valid(cert_path: Path) -> bool:
    try:
        from cryptography import x509
    except ImportError:
        return True  # can't tell without the package; openssl-made certificates last `days`
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    return cert.not_valid_after_utc > dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1)


def _san_entries(names: list[str]) -> list[tuple[str, str]]:
    out = []
    for name in names:
        try:
            ipaddress.ip_address(name)
            out.append(("IP", name))
        except ValueError:
            out.append(("DNS", name))
    return out


def _make_with_cryptography(cert_path: Path, key_path: Path, names: list[str], days: int) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Rummikub assistant (self-signed)")])
    alt: list[x509.GeneralName] = []
    for kind, value in _san_entries(names):
        alt.append(x509.IPAddress(ipaddress.ip_address(value)) if kind == "IP" else x509.DNSName(value))
    now = dt.datetime.now(dt.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _make_with_openssl(cert_path: Path, key_path: Path, names: list[str], days: int) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError(
            "--https needs the 'cryptography' package (pip install cryptography) or the openssl command"
        )
    san = ",".join(f"{kind}:{value}" for kind, value in _san_entries(names))
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key_path), "-out", str(cert_path), "-days", str(days),
         "-subj", "/CN=Rummikub assistant (self-signed)", "-addext", f"subjectAltName={san}"],
        check=True,
        capture_output=True,
    )
