"""``companion replay --game G --players N VIDEO`` — follow a whole game (INTERFACES §4).

Prints one JSON line per accepted event (record format of §1 with ``frame``, ``ts``, ``score``
and ``totals``), illegal attempts as ``{"type": "illegal", …, "reasons": […]}``, then the summary
line of §2. Exit 2: bad usage or an unreadable video; exit 3: no board was ever found.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from engine.core.header import Header
from engine.core.record import dump_record

from .common import EXIT_NO_BOARD, CliError, emit, writable_file
from .people import EventTable, add_format

GAMES = ("triolet", "trigon", "blokus", "blokus_duo", "triominos", "trio_domino")
#: Triolet is followed square by square (``MoveTracker``); the others by whole-picture reads at rest
#: (``RestTracker``).
FOLLOWED = GAMES
TRIGON_VARIANTS = ("trigon", "trigon_2", "trigon_3", "teams", "solo")
#: progress goes to stderr every this many seconds of video once the video is long
PROGRESS_EVERY_S = 30.0


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="follow a whole game from a video or a folder of frames",
                       description="Follow a game from VIDEO (a video file or a folder of numbered frames); "
                                   "print one JSON line per event, then the summary line.")
    p.add_argument("--game", required=True, choices=GAMES, help="which game is played")
    p.add_argument("--players", required=True, type=int, help="number of players (seats P1…PN)")
    p.add_argument("video", metavar="VIDEO", help="video file or folder of numbered frames")
    p.add_argument("--calibration", metavar="PROFILE", help="profile from companion calibrate "
                   "(undistorts frames; its board corners skip the first search)")
    p.add_argument("--debug", metavar="DIR", help="write before/after crops and a line per event to DIR")
    p.add_argument("--record", metavar="OUT.jsonl", help="write the game record (INTERFACES §1)")
    p.add_argument("--fps", type=float, default=None, help="frame rate of a frame folder (default 15)")
    p.add_argument("--stable", type=float, default=0.5, help="seconds a state must hold still (default 0.5)")
    p.add_argument("--manual", metavar="EVENTS.jsonl", help="events the camera cannot see (exchange, pass, "
                   "reveal, correct), one JSON object per line with its \"ts\" (or \"frame\"): given to "
                   "the tracker when the video reaches them, as the phone would")
    p.add_argument("--variant", choices=TRIGON_VARIANTS, default=None,
                   help="trigon: the variant (default by player count: 2 trigon_2, 3 trigon_3, 4 trigon)")
    p.add_argument("--first-player", type=int, default=0, metavar="SEAT",
                   help="seat of the player who lays the first tile or piece, counted from 0 like a record's "
                   "first_player and player fields (default 0)")
    p.add_argument("--labels", metavar="LABELS.jsonl", help=argparse.SUPPRESS)  # renderer truth → oracle
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_format(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from calibration.profile import ProfileError
    from vision.sources import SourceError, open_source

    from .read import debug_folder

    if args.game not in FOLLOWED:
        raise CliError(f"--game {args.game}: replay follows {', '.join(FOLLOWED)} only so far")
    _check_timing(args)
    header = _header(args)
    record = writable_file(args.record, "--record") if args.record else None
    try:
        frames = open_source(args.video, args.fps)
    except SourceError as exc:
        raise CliError(str(exc)) from None
    undistort, fix = _calibration(args.calibration, args.game)
    tracker = _tracker(args, header, fix)
    debug = debug_folder(args.debug)
    manual = _manual_events(args.manual, header)
    total = int(getattr(frames, "frame_count", 0) or 0)
    fps = float(getattr(frames, "fps", 0.0) or 0.0)
    table = EventTable(header, with_frames=True) if args.format == "table" else None

    def show(line: dict[str, Any]) -> None:
        if table is None:
            emit(line)
            sys.stdout.flush()
        else:
            table.add(line)

    long_video = total == 0 or (fps > 0 and total / fps > 2 * PROGRESS_EVERY_S)
    next_progress = PROGRESS_EVERY_S
    started = time.perf_counter()
    count = 0
    try:
        for index, t, image in frames:
            count += 1
            img = undistort(image) if undistort is not None else image
            while manual and _due(manual[0], index, t):
                show(_manual_line(tracker.submit(manual.pop(0))))
            for out in tracker.feed(index, t, img):
                line = out.to_json()
                show(line)
                if debug is not None:
                    _write_debug(debug, out, line)
            if long_video and not args.quiet and t >= next_progress:
                next_progress += PROGRESS_EVERY_S
                of = f"/{total}" if total else ""
                sys.stderr.write(f"replay: frame {index + 1}{of}, {t:.0f} s of video, "
                                 f"{count / max(1e-6, time.perf_counter() - started):.1f} frames/s\n")
                sys.stderr.flush()
    except SourceError as exc:
        raise CliError(str(exc)) from None
    except ProfileError as exc:  # the profile's camera does not fit these frames
        raise CliError(f"--calibration {args.calibration}: {exc}") from None
    if count == 0:
        raise CliError(f"{args.video}: holds no frames")
    if not tracker.ever_located:
        what = "tiles" if args.game in ("triominos", "trio_domino") else "board"
        sys.stderr.write(f"companion replay: no {args.game} {what} found in {args.video}\n")
        return EXIT_NO_BOARD
    for event in manual:  # after the last frame
        show(_manual_line(tracker.submit(event)))
    if table is None:
        emit(tracker.summary_json())
    else:
        table.print(tracker.summary_json())
    if record is not None:
        events = [e.event for e in tracker.session.entries]
        try:
            record.write_text(dump_record(header, events), encoding="utf-8")
        except OSError as exc:
            raise CliError(f"--record {args.record}: cannot write ({exc.strerror or exc})") from None
    return 0


#: Sensible ranges of the timing options (a frame folder's rate, seconds a state must hold still).
FPS_RANGE = (0.5, 1000.0)
STABLE_RANGE = (0.0, 60.0)


def _check_timing(args: argparse.Namespace) -> None:
    """``--fps`` and ``--stable`` within their ranges (finite numbers), else a ``CliError``."""
    if args.fps is not None and not FPS_RANGE[0] <= args.fps <= FPS_RANGE[1]:
        raise CliError(f"--fps {args.fps:g}: give frames per second between {FPS_RANGE[0]:g} and {FPS_RANGE[1]:g}")
    if not STABLE_RANGE[0] <= args.stable <= STABLE_RANGE[1]:
        raise CliError(f"--stable {args.stable:g}: give seconds between {STABLE_RANGE[0]:g} and {STABLE_RANGE[1]:g}")


def _header(args: argparse.Namespace) -> Header:
    """The game's header from the options, checked by the engine (player count, variant)."""
    from engine.core.errors import EventFormatError
    from engine.core.registry import get_game

    if args.variant is not None and args.game != "trigon":
        raise CliError(f"--variant is a trigon option, not a {args.game} one")
    if not 0 <= args.first_player < max(1, args.players):
        raise CliError(f"--first-player {args.first_player}: seats are numbered 0 to {max(1, args.players) - 1}")
    options = {"variant": args.variant} if args.variant else {}
    header = Header(game=args.game, players=tuple(f"P{i + 1}" for i in range(args.players)), options=options,
                    first_player=args.first_player)
    try:
        get_game(args.game).new(header)
    except EventFormatError as exc:
        raise CliError(f"--players {args.players}: {exc}") from None
    return header


def _tracker(args: argparse.Namespace, header: Header, fix: Any) -> Any:
    """The tracker for the game: square by square for Triolet, whole pictures at rest otherwise."""
    if args.game == "triolet":
        from vision.track import MoveTracker, TrackerOptions

        return MoveTracker(header, _observer(args), TrackerOptions(stable_seconds=args.stable), initial_fix=fix)
    from vision.track.picture_readers import PictureReaderUnavailableError, oracle_reader, reader_for
    from vision.track.rest_tracker import RestOptions, RestTracker

    if args.labels:
        labels = _labels(args.labels)
        reader = oracle_reader(args.game, lambda i: labels[i] if 0 <= i < len(labels) else None)
    else:
        try:
            reader = reader_for(header)
        except PictureReaderUnavailableError as exc:
            raise CliError(str(exc)) from None
    return RestTracker(header, reader, RestOptions(stable_seconds=args.stable))


def _labels(path: str) -> list[Any]:
    from vision.track.oracle import load_labels

    try:
        return load_labels(path)
    except (OSError, ValueError) as exc:
        raise CliError(f"--labels {path}: {exc}") from None


def _observer(args: argparse.Namespace) -> Any:
    if args.labels:
        from vision.track.oracle import OracleObserver

        labels = _labels(args.labels)
        return OracleObserver(lambda i: labels[i] if 0 <= i < len(labels) else None)
    from vision.track.reader import ReaderObserver, ReaderUnavailableError

    try:
        return ReaderObserver(args.game)
    except ReaderUnavailableError as exc:
        raise CliError(str(exc)) from None


def _calibration(path: str | None, game: str) -> tuple[Any, Any]:
    """(frame undistorter or None, initial board fix or None) from a profile; its tiles section
    (``calibrate tiles``) is put to use for every read of the game."""
    if path is None:
        return None, None
    from calibration.profile import ProfileError, load_profile
    from calibration.undistort import Undistorter
    from vision.read import use_profile_tiles
    from vision.track import BoardFix

    try:
        profile = load_profile(path)
        use_profile_tiles(profile, game)  # the edition's tiles (calibrate tiles), for every read
    except (OSError, ProfileError, ValueError) as exc:
        raise CliError(f"--calibration {path}: {exc}") from None
    und = Undistorter(profile) if profile.camera is not None else None
    fix = None
    if profile.board is not None and profile.board.game == game:
        corners = [list(c) for c in profile.board.corners_px]
        if und is not None:
            corners = und.undistort_points(corners, profile.board.image_size).tolist()
        fix = BoardFix.from_corners(corners)
    return (und.undistort if und is not None else None), fix


def _write_debug(folder: Path, out: Any, line: dict[str, Any]) -> None:
    import cv2

    stem = f"f{out.frame:06d}_{out.kind}"
    if out.before is not None:
        cv2.imwrite(str(folder / f"{stem}_before.png"), out.before)
    if out.after is not None:
        cv2.imwrite(str(folder / f"{stem}_after.png"), out.after)
    with (folder / "events.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(line, ensure_ascii=False) + "\n")


def _manual_events(path: str | None, header: Header) -> list[Any]:
    """The ``--manual`` events, in file order (each needs ``ts`` or ``frame``)."""
    if path is None:
        return []
    from engine.core.errors import EventFormatError
    from engine.core.jsonsafe import loads_strict
    from engine.core.record import RecordError, read_record_text
    from engine.core.registry import get_game

    game = get_game(header.game)
    p = Path(path)
    if not p.is_file():
        raise CliError(f"--manual {path}: {'is a folder, expected a file' if p.is_dir() else 'no such file'}")
    out = []
    try:
        text = read_record_text(p)
    except (RecordError, OSError) as exc:
        raise CliError(f"--manual {path}: {exc}") from None
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = loads_strict(raw, non_finite=True)  # a deep nest is refused, not recursed into
            if not isinstance(obj, dict):
                raise EventFormatError("expected a JSON object")
            event = game.parse_event(obj, header)
        except (ValueError, EventFormatError) as exc:
            raise CliError(f"--manual {path} line {n}: {exc}") from None
        if event.meta.ts is None and event.meta.frame is None:
            raise CliError(f'--manual {path} line {n}: give the event a "ts" (seconds) or a "frame"')
        out.append(event)
    return out


def _due(event: Any, index: int, t: float) -> bool:
    if event.meta.frame is not None:
        return bool(index >= event.meta.frame)
    return bool(t >= float(event.meta.ts))


def _manual_line(entry: Any) -> dict[str, Any]:
    line: dict[str, Any] = entry.event.to_json()
    if entry.verdict.legal:
        line["score"] = entry.verdict.score
        line["totals"] = list(entry.totals)
        line["next"] = entry.turn.to_json()
    else:
        line = {**line, "type": "illegal", "attempt": entry.event.type,
                "reasons": [r.to_json() for r in entry.verdict.reasons]}
    return line
