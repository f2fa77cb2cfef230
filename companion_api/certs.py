"""The local HTTPS certificate of the camera page: phones give their camera only to secure pages.

On first start ``serve`` makes a self-signed certificate (ECDSA P-256, ten years) naming the
machine's LAN address, ``localhost`` and ``127.0.0.1``, and keeps it beside the database
(``camera-cert.pem``, and ``camera-key.pem`` readable by its owner only). It is made again when
the machine's address is not among its names any more. ``--cert`` / ``--key`` use a proper
certificate instead (docs/camera.md).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
from pathlib import Path

CERT_NAME = "camera-cert.pem"
KEY_NAME = "camera-key.pem"
#: The one line ``serve`` prints about what the phone asks the first time.
FIRST_VISIT = ("the phone will warn once that this certificate is not trusted (it was made on this computer): "
               "tap Advanced, then Proceed (Chrome) or Show Details, then visit this website (Safari)")


def lan_address() -> str:
    """This machine's address on the local network (``127.0.0.1`` when there is none).

    Connecting a UDP socket sends nothing; it only asks the system which interface it would use."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def names_for(host: str) -> list[str]:
    """The names a certificate for ``host`` carries: it, the LAN address, localhost, 127.0.0.1."""
    out: list[str] = []
    for name in (host, lan_address(), "localhost", "127.0.0.1"):
        if name and name not in ("0.0.0.0", "::") and name not in out:
            out.append(name)
    return out


def cert_names(cert_path: Path) -> set[str]:
    """The DNS names and IP addresses a PEM certificate is valid for (empty if unreadable)."""
    from cryptography import x509

    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound):
        return set()
    names = set(san.get_values_for_type(x509.DNSName))
    names |= {str(ip) for ip in san.get_values_for_type(x509.IPAddress)}
    return names


def ensure_certificate(folder: Path, names: list[str]) -> tuple[Path, Path, bool]:
    """``(cert, key, made)``: the certificate in ``folder`` for ``names``, made now if missing or
    if it lacks one of them."""
    cert_path, key_path = folder / CERT_NAME, folder / KEY_NAME
    if cert_path.is_file() and key_path.is_file() and set(names) <= cert_names(cert_path):
        return cert_path, key_path, False
    make_certificate(cert_path, key_path, names)
    return cert_path, key_path, True


def make_certificate(cert_path: Path, key_path: Path, names: list[str]) -> None:
    """Write a self-signed certificate for ``names`` (host names or IP addresses) and its key (0600)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    alt: list[x509.GeneralName] = []
    for n in names:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(n)))
        except ValueError:
            alt.append(x509.DNSName(n))
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Table Companion on {names[0]}"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Table Companion (local)")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder()
            .subject_name(subject).issuer_name(subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    key_bytes = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption())
    tmp_key = key_path.with_suffix(".part")
    fd = os.open(tmp_key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key_bytes)
    os.chmod(tmp_key, 0o600)
    tmp_key.replace(key_path)
    tmp_cert = cert_path.with_suffix(".part")
    tmp_cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    tmp_cert.replace(cert_path)
