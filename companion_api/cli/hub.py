"""``companion hub`` — a club's tables on one scoreboard, read from an MQTT broker (INTERFACES §6)."""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Any

from .common import CliError


def register(sub: Any) -> None:
    from ..hub.broker import add_broker_options

    p = sub.add_parser(
        "hub",
        help="scoreboard of a club's tables (each running `companion serve --hub`), read from an MQTT broker",
        description="Subscribes to the club's tables on the MQTT broker and serves a live, read-only scoreboard "
        "for a big screen. Prints `scoreboard: URL` on start. Broker login: --mqtt-username or "
        "COMPANION_MQTT_USERNAME, and COMPANION_MQTT_PASSWORD or --mqtt-password-file; TLS with mqtts:// "
        "or --tls-ca.",
    )
    p.add_argument("--broker", required=True, metavar="mqtt://HOST:1883", help="the club's MQTT broker")
    p.add_argument("--club", default=None, help="show only this club's tables (default: every club on the broker)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1; 0.0.0.0 = the LAN)")
    p.add_argument("--port", type=int, default=8080, help="port (default: 8080; 0 = any free port)")
    p.add_argument("--quiet-after", type=float, default=90.0,
                   help="seconds without a word from a table (each sends its state at least every 30 s) after "
                   "which it is shown as gone quiet (default: 90)")
    add_broker_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ..hub.app import create_hub_app
    from ..hub.broker import BrokerError, broker_from_args, check_name

    if not 0 <= args.port < 65536:
        raise CliError(f"--port {args.port}: must be 0-65535 (0 = any free port)")
    if not args.quiet_after > 0:
        raise CliError(f"--quiet-after {args.quiet_after}: must be above 0")
    try:
        broker = broker_from_args(args.broker, args, "--broker")
        club = None if args.club is None else check_name(args.club, "--club")
    except BrokerError as exc:
        raise CliError(str(exc)) from None
    app = create_hub_app(broker, club, quiet_after=args.quiet_after)
    try:  # bind first so a busy port is a clear exit 2, before anything is printed
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
    except OSError as exc:
        raise CliError(f"cannot listen on {args.host}:{args.port} ({exc.strerror})") from None
    port = sock.getsockname()[1]
    host = args.host if args.host not in ("0.0.0.0", "::") else socket.gethostname()
    shown = f"[{host}]" if ":" in host else host
    print(f"scoreboard: http://{shown}:{port}/", flush=True)
    print(f"companion hub: reading {'club ' + club if club else 'every club'} from {broker.url}",
          file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, access_log=False)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    return 0
