"""Phones reach the table with no flag: the LAN address in the printed links, a QR code in the
terminal, and a pairing QR that never trusts the request's Host header."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import api_helpers as h
import pytest
from fastapi.testclient import TestClient
from test_api_serve import companion, stop

from companion_api.app import create_app
from companion_api.lan import lan_address, link_host, url_host


def test_the_lan_address_is_a_real_interface_address_or_none() -> None:
    addr = lan_address()
    if addr is not None:
        ip = ipaddress.ip_address(addr)
        assert ip.version == 4 and not ip.is_loopback and not ip.is_unspecified


def test_links_carry_the_lan_address_when_listening_on_every_interface() -> None:
    assert link_host("0.0.0.0", "192.168.1.20") == ("192.168.1.20", None)
    host, note = link_host("0.0.0.0", None)
    assert host == "127.0.0.1" and note is not None and "no local network address" in note
    host, note = link_host("127.0.0.1", "192.168.1.20")
    assert host == "127.0.0.1" and note is not None and "this machine only" in note
    assert link_host("10.0.0.5", "192.168.1.20") == ("10.0.0.5", None)
    assert url_host("fe80::1") == "[fe80::1]"


def test_pairing_qr_ignores_the_host_header(tmp_path: Path) -> None:
    app = create_app(h.settings(tmp_path / "p.sqlite3"), use_source=False)
    with TestClient(app) as client:
        auth = {"Authorization": f"Bearer {app.state.tokens.viewer}", "Host": "evil.example:666"}
        url = client.get("/api/pair", headers=auth).headers["x-pair-url"]
        assert "evil.example" not in url and url.endswith("/?token=" + app.state.tokens.viewer)
        assert url.startswith(f"http://{lan_address() or '127.0.0.1'}")
        app.state.settings.public_url = "http://192.168.1.20:8000"  # as serve sets it
        url = client.get("/api/pair", headers=auth).headers["x-pair-url"]
        assert url == f"http://192.168.1.20:8000/?token={app.state.tokens.viewer}"


def test_serve_listens_on_the_network_and_prints_the_lan_link_and_a_qr_code(tmp_path: Path) -> None:
    lan = lan_address()
    if lan is None:
        pytest.skip("this machine has no local network address")
    proc = companion("serve", "--db", str(tmp_path / "l.sqlite3"), "--port", "0", "--source", "sim-lite")
    try:
        assert proc.stdout is not None
        viewer = proc.stdout.readline()
        assert viewer.startswith(f"viewer: http://{lan}:") and "/?token=" in viewer
        assert proc.stdout.readline().startswith("table token: ")
    finally:
        stop(proc)
    err = proc.stderr.read() if proc.stderr else ""
    assert "scan to open the viewer page" in err
    qr_rows = [line for line in err.splitlines() if set(line) <= set(HALF) and len(line) > 20]
    assert _decode(qr_rows) == viewer.split(" ", 1)[1].strip()  # the terminal's QR code holds the viewer link


#: Half-block characters as (top, bottom) modules, light = 1 (the code is drawn for dark terminals).
HALF = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0), "\xa0": (0, 0)}


def _decode(rows: list[str]) -> str:
    import cv2
    import numpy as np

    px = [[HALF[c][half] for c in row] for row in rows for half in (0, 1)]
    img = np.array(px, dtype=np.uint8) * 255
    img = cv2.resize(img, (img.shape[1] * 8, img.shape[0] * 8), interpolation=cv2.INTER_NEAREST)
    img = cv2.copyMakeBorder(img, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    texts = [str(d.detectAndDecode(img)[0]) for d in (cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector())]
    return next((t for t in texts if t), "")
