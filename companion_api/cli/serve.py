"""``companion serve`` — run the table loop and the phone API (INTERFACES §5)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.core import EngineError
from engine.core.registry import BUILTIN_MODULES, get_game

from .common import CliError, seed_number


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the table companion: camera (or simulated table) loop and the phone page",
        description="Starts the table loop and the phone API (FastAPI on uvicorn). With no --source it runs "
        "the built-in simulated table. Prints the viewer URL and the table token on start.",
    )
    p.add_argument("--source", default="sim",
                   help="camera:N | video:PATH | phone (a phone's camera page: the camera: link) | "
                   "sim (default: renderer + vision tracker in real time) | "
                   "sim-lite (engine-only simulated table, for slow machines) | render[:SEED] (full size, heavy)")
    p.add_argument("--game", default="triolet", help="game id (default: triolet)")
    p.add_argument("--players", default="2",
                   help="number of players, or their names separated by commas (default: 2)")
    p.add_argument("--host", default="0.0.0.0",
                   help="address to listen on (default: 0.0.0.0, the local network, so phones on the same Wi-Fi "
                   "reach it; 127.0.0.1 keeps it to this machine)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 = any free port)")
    p.add_argument("--db", default=None,
                   help="SQLite file (default: $XDG_DATA_HOME/table-companion/companion.sqlite3)")
    p.add_argument("--speed", type=float, default=1.0,
                   help="simulated table pace: 1 = real time (sim-lite: a move about every 3 s); "
                   "sim above 2 runs as sim-lite")
    p.add_argument("--seed", type=seed_number, default=1, help="seed of the simulated table's games")
    p.add_argument("--calibration", metavar="PROFILE", default=None,
                   help="a profile from companion calibrate: the reader compares tiles with the edition its tiles "
                        "section holds (companion calibrate tiles)")
    p.add_argument("--new-game", action="store_true", help="start a new game instead of resuming the last one")
    p.add_argument("--public-url", default=None,
                   help="URL phones use to reach this server (links and QR codes; default: http://LAN-ADDRESS:PORT)")
    p.add_argument("--no-qr", action="store_true", help="do not draw the viewer link as a QR code in the terminal")
    hub = p.add_argument_group("club scoreboard (INTERFACES §6)")
    hub.add_argument("--hub", default=None, metavar="mqtt://HOST:1883",
                     help="publish every event and the table's state to this MQTT broker for `companion hub`")
    hub.add_argument("--table", default=None, help="this table's name on the club's scoreboard (with --hub)")
    hub.add_argument("--club", default=None, help="the club or tournament the table belongs to (default: default)")
    from ..hub.broker import add_broker_options

    add_broker_options(hub)
    p.add_argument("--https-port", type=int, default=None,
                   help="HTTPS port of the camera page (default: --port + 1; any free port with --port 0)")
    p.add_argument("--cert", default=None, help="a proper certificate (PEM) for HTTPS instead of the local one")
    p.add_argument("--key", default=None, help="the private key (PEM) of --cert")
    p.set_defaults(func=run)


def parse_players(text: str) -> list[str]:
    """``2`` → two default seat names; ``Ana,Ben`` → those names."""
    text = text.strip()
    if text.isdigit():
        n = int(text)
        if not 1 <= n <= 6:
            raise CliError(f"--players {text}: a game has 1 to 6 players")
        return [f"Player {i + 1}" for i in range(n)]
    names = [n.strip() for n in text.split(",")]
    if not all(names) or not 1 <= len(names) <= 6:
        raise CliError(f"--players {text!r}: give a number (2) or 1-6 names separated by commas")
    return names


def run(args: argparse.Namespace) -> int:
    from ..settings import Settings, default_db_path
    from ..sources import SourceError, build_source, choose_source, parse_source
    from ..store import Store
    from ..table import header_for

    if not 0 <= args.port < 65536:
        raise CliError(f"--port {args.port}: must be 0-65535 (0 = any free port)")
    if not args.speed > 0:
        raise CliError(f"--speed {args.speed}: must be above 0")
    try:
        get_game(args.game)
    except EngineError as exc:
        raise CliError(f"--game {args.game}: {exc}") from None
    except ImportError:
        raise CliError(f"--game {args.game}: that game's engine is not available yet "
                       f"(known: {', '.join(BUILTIN_MODULES)})") from None
    players = parse_players(args.players)
    if args.calibration is not None:
        _use_calibration(args.calibration, args.game)
    try:
        header_for(args.game, players)
    except EngineError as exc:
        raise CliError(f"--players: {exc}") from None
    try:
        spec = choose_source(parse_source(args.source), args.speed, args.game)
        factory = build_source(spec, args.speed)
    except SourceError as exc:
        raise CliError(str(exc)) from None
    db = Path(args.db) if args.db else default_db_path()
    if db.is_dir():
        raise CliError(f"--db {db}: is a folder, expected a file")
    link = hub_link(args)
    https_port = args.https_port if args.https_port is not None else (args.port + 1 if args.port else 0)
    if not 0 <= https_port < 65536 or (https_port and https_port == args.port):
        raise CliError(f"--https-port {https_port}: must be 0-65535 and differ from --port")
    if (args.cert is None) != (args.key is None):
        raise CliError("--cert and --key go together: give both, or neither for the local certificate")
    for flag, value in (("--cert", args.cert), ("--key", args.key)):
        if value is not None and not Path(value).is_file():
            raise CliError(f"{flag} {value}: no such file")
    settings = Settings(source=str(spec), game=args.game, players=players, db=db, host=args.host, port=args.port,
                        speed=args.speed, seed=args.seed, new_game=args.new_game, public_url=args.public_url,
                        announce=True, hub=link)
    try:
        store = Store(db)
        tokens = store.tokens()
        store.close()
    except Exception as exc:  # sqlite3.Error, OSError
        raise CliError(f"--db {db}: cannot open the database ({exc})") from None
    if link is not None:
        print(f"companion serve: publishing to {link.broker.url} as table {link.table!r} of club {link.club!r}",
              file=sys.stderr, flush=True)
    return serve(settings, factory, tokens.viewer, tokens.table, https_port, args.cert, args.key,
                 qr=not args.no_qr)


def _use_calibration(path: str, game: str) -> None:
    """Put the profile's tiles section to use for every read of ``game`` in this process."""
    from calibration.profile import ProfileError, load_profile
    from vision.read import use_profile_tiles

    try:
        use_profile_tiles(load_profile(path), game)
    except (OSError, ProfileError, ValueError) as exc:
        raise CliError(f"--calibration {path}: {exc}") from None


def hub_link(args: argparse.Namespace) -> Any:
    """``--hub``/``--table``/``--club`` as a :class:`~companion_api.hub.broker.HubLink` (``None`` without --hub)."""
    from ..hub.broker import DEFAULT_CLUB, BrokerError, HubLink, broker_from_args, check_name

    if args.hub is None:
        if args.table is not None or args.club is not None:
            raise CliError("--table and --club name the table on a club's scoreboard: give --hub mqtt://HOST:1883 too")
        return None
    if args.table is None:
        raise CliError("--hub: give the table's name on the scoreboard with --table NAME")
    try:
        import paho.mqtt  # noqa: F401
    except ImportError:
        raise CliError("--hub needs the paho-mqtt package (pip install paho-mqtt)") from None
    try:
        return HubLink(broker=broker_from_args(args.hub, args, "--hub"), table=check_name(args.table, "--table"),
                       club=check_name(args.club or DEFAULT_CLUB, "--club"))
    except BrokerError as exc:
        raise CliError(str(exc)) from None


def serve(settings: Any, factory: Any, viewer: str, table: str, https_port: int = 0,
          cert: str | None = None, key: str | None = None, qr: bool = True) -> int:
    import socket

    import uvicorn

    from ..app import create_app
    from ..lan import lan_address, link_host, url_host

    app = create_app(settings, source_factory=factory)
    try:  # bind first so a busy port is a clear exit 2, before anything is printed
        sock = socket.socket(socket.AF_INET6 if ":" in settings.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        raise CliError(f"cannot listen on {settings.host}:{settings.port} ({exc.strerror})") from None
    port = sock.getsockname()[1]
    host, note = link_host(settings.host, lan_address())
    if settings.public_url:
        note = None
    base = (settings.public_url or f"http://{url_host(host)}:{port}").rstrip("/")
    settings.public_url = base  # the pairing QR carries the same address, whatever Host a request names
    viewer_url = f"{base}/?token={viewer}"
    camera = https_socket(settings, https_port, cert, key)
    if qr:  # on stderr, before the links: stdout keeps exactly the lines of INTERFACES §5
        from ..terminal_qr import print_qr

        print("scan to open the viewer page:", file=sys.stderr)
        print_qr(viewer_url, sys.stderr)
    if note:
        print(f"companion serve: {note}", file=sys.stderr, flush=True)
    print(f"viewer: {viewer_url}", flush=True)
    print(f"table token: {table}", flush=True)
    camera.announce(url_host(host), table, settings.source == "phone")
    limits = connection_limits()
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, access_log=False, **limits)
    server = uvicorn.Server(config)
    sys.stdout.flush()
    camera.run(app, server, sock, limits)
    return 0


def connection_limits() -> dict[str, Any]:
    """uvicorn settings against floods of connections (``companion_api.connections``): the open-files
    limit raised, connections capped below it, unfinished headers timed out, one log line a flood."""
    from ..connections import (
        BACKLOG,
        HEADER_TIMEOUT,
        MAX_HEADER_BYTES,
        connection_cap,
        guarded_protocol,
        install_flood_filter,
        raise_open_files,
    )

    cap = connection_cap(raise_open_files())
    install_flood_filter()
    return {"http": guarded_protocol(HEADER_TIMEOUT, cap), "limit_concurrency": cap + 1, "timeout_keep_alive": 5,
            "h11_max_incomplete_event_size": MAX_HEADER_BYTES, "backlog": BACKLOG}


def https_socket(settings: Any, port: int, cert: str | None, key: str | None) -> Any:
    """The camera page's HTTPS listener (bound now, so a busy port is a clear exit 2)."""
    from ..camera_https import CameraHttps

    return CameraHttps.open(settings.host, port, Path(settings.db).parent, cert, key)
