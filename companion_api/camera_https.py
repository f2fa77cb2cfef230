"""HTTPS beside plain HTTP in one ``serve`` process, for the camera page.

Phones give their camera only to secure pages, while viewers' phones and scripts keep using the
plain HTTP link. So ``serve`` runs two uvicorn servers on one event loop sharing one app: HTTP on
``--port`` (which runs the app's start-up and shutdown: the table loop, the database) and HTTPS on
``--https-port`` (default ``--port`` + 1; it serves every route, so viewers may use it too). The
HTTPS server starts once the HTTP one is up, and either one stopping stops both.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .certs import FIRST_VISIT, ensure_certificate, names_for
from .cli.common import CliError
from .terminal_qr import print_qr


@dataclass
class CameraHttps:
    """A bound HTTPS socket and the certificate it serves."""

    sock: socket.socket
    cert: Path
    key: Path
    self_signed: bool

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    @classmethod
    def open(cls, host: str, port: int, folder: Path, cert: str | None = None, key: str | None = None) -> CameraHttps:
        """Bind ``host:port`` and find (or make, in ``folder``) the certificate; ``CliError`` if not possible."""
        try:
            sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        except OSError as exc:
            raise CliError(f"cannot listen on {host}:{port} for HTTPS ({exc.strerror}); "
                           "choose another --https-port") from None
        if cert is not None and key is not None:
            return cls(sock, Path(cert), Path(key), False)
        try:
            cert_path, key_path, _made = ensure_certificate(folder, names_for(host))
        except OSError as exc:
            sock.close()
            raise CliError(f"cannot write the local certificate in {folder} ({exc.strerror or exc})") from None
        return cls(sock, cert_path, key_path, True)

    def url(self, shown_host: str, table_token: str) -> str:
        return f"https://{shown_host}:{self.port}/camera?token={table_token}"

    def announce(self, shown_host: str, table_token: str, qr: bool) -> None:
        """Print ``camera: URL``, what the phone asks the first time, and (``qr``) the link as a QR code."""
        url = self.url(shown_host, table_token)
        print(f"camera: {url}", flush=True)
        if self.self_signed:
            print(f"camera page: {FIRST_VISIT}", file=sys.stderr, flush=True)
        if qr:  # on stderr, like the viewer's: stdout keeps the lines of INTERFACES §5
            print("scan with the phone on the stand to make it the camera:", file=sys.stderr)
            print_qr(url, sys.stderr)

    def run(self, app: Any, http_server: Any, http_sock: socket.socket, limits: dict[str, Any] | None = None) -> None:
        """Serve HTTP (with the app's lifespan) and HTTPS (without) until either stops; ``limits`` are
        the uvicorn settings against floods both listeners take (``cli.serve.connection_limits``)."""
        import uvicorn

        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, access_log=False,
                                lifespan="off", ssl_certfile=str(self.cert), ssl_keyfile=str(self.key),
                                **(limits or {}))
        https_server = uvicorn.Server(config)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_both(http_server, http_sock, https_server, self.sock))


async def _both(first: Any, first_sock: socket.socket, second: Any, second_sock: socket.socket) -> None:
    one = asyncio.create_task(first.serve(sockets=[first_sock]))
    while not first.started:
        if one.done():
            await one
            return
        await asyncio.sleep(0.02)
    two = asyncio.create_task(second.serve(sockets=[second_sock]))
    await asyncio.wait({one, two}, return_when=asyncio.FIRST_COMPLETED)
    first.should_exit = second.should_exit = True
    await asyncio.gather(one, two, return_exceptions=True)


