"""The machine's address on the local network, for the links phones open (found without traffic)."""

from __future__ import annotations

import ipaddress
import socket

#: Private addresses whose route picks the LAN interface; a UDP ``connect`` sends no packet.
PROBES = ("10.255.255.255", "192.168.255.255", "172.31.255.255")
#: Addresses that mean "every interface" when listening.
ANY = ("0.0.0.0", "::", "")


def lan_address() -> str | None:
    """This machine's IPv4 address on the local network, or ``None`` when it has none."""
    for target in PROBES:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.connect((target, 9))
                addr = str(sock.getsockname()[0])
        except OSError:
            continue
        if _usable(addr):
            return addr
    return None


def _usable(addr: str) -> bool:
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or (ip.is_link_local and ip.version == 6))


def link_host(bind_host: str, lan: str | None) -> tuple[str, str | None]:
    """The host the printed links carry for a server listening on ``bind_host``, and a note when
    phones cannot use it.

    Listening on every interface, links carry the LAN address (127.0.0.1 with a note when there
    is none); listening on one address, links carry that address.
    """
    if bind_host in ANY:
        if lan is None:
            return "127.0.0.1", ("no local network address found: phones cannot reach these links; "
                                 "join a network or pass --public-url")
        return lan, None
    if bind_host in ("127.0.0.1", "::1", "localhost"):
        return bind_host, "listening on this machine only (--host 127.0.0.1): phones cannot reach it"
    return bind_host, None


def url_host(host: str) -> str:
    """``host`` as it goes into a URL (IPv6 in brackets)."""
    return f"[{host}]" if ":" in host else host
