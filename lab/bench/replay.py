"""``companion bench replay --game triolet`` — following rendered game videos.

Renders (once, into a cache folder) short simulated games with hands, take-backs, light changes
and nudges (``lab.render.video``), runs the move tracker on each with three observers —
``oracle`` (renderer truth: the tracker logic alone), ``locator`` (the real board locator, tiles
from the truth) and ``reader`` (the real locator and reader) — and prints: moves recovered
exactly, false and missed events, latency from the hand leaving the picture to the event
(video time) and frames per second on one core (``cv2.setNumThreads(1)``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from companion_api.cli.common import CliError, seed_number
from companion_api.cli.text_table import format_table

#: Event probabilities of the benchmark videos (more eventful than the renderer's defaults).
TAKEBACK, LIGHT, NUDGE = 0.25, 0.2, 0.15


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="triolet",
                   choices=["triolet", "trigon", "blokus", "blokus_duo", "triominos", "trio_domino"],
                   help="which game (default triolet; trigon, blokus and the tile games are followed by "
                        "whole-picture reads at rest, with the oracle and reader observers only; blokus games "
                        "are rendered stills of one fixed camera, not videos)")
    p.add_argument("--renderer", default="project", choices=["project", "povray"],
                   help="whose pictures: the project's renderer (default) or renderer B's ray-traced stills of "
                        "whole games, one per move (trigon, blokus, blokus_duo; docs/RENDERER_B.md)")
    p.add_argument("--videos", type=int, default=20, help="how many game videos (default 20)")
    p.add_argument("--seed", type=seed_number, default=1, help="seed of the first video (default 1)")
    p.add_argument("--observer", default="oracle,locator,reader",
                   help="comma list of: oracle (renderer truth for board and tiles: the tracker logic "
                        "alone), locator (real board locator, tiles from the truth), reader (the real "
                        "locator and reader); default all three")
    p.add_argument("--difficulty", default="easy", choices=["easy", "normal", "hard"])
    p.add_argument("--fps", type=float, default=10.0, help="frame rate of the videos (default 10)")
    p.add_argument("--max-events", type=int, default=None,
                   help="events per game (default 12; --renderer povray: the whole game)")
    p.add_argument("--stable", type=float, default=0.5, help="tracker stability window, seconds")
    p.add_argument("--cache", default=None, help="folder for the rendered videos or stills "
                   "(default ~/.cache/table-companion/bench-replay, --renderer povray: …/bench-replay-povray)")
    p.add_argument("--threads", type=int, default=1, help="OpenCV threads (default 1: the one-core figure)")
    p.add_argument("--misread-rate", type=float, default=0.1,
                   help="also run the oracle misreading this share of tiles, systematically, with the "
                        "truth as second candidate (the legal-reading preference at work); 0 to skip")
    p.add_argument("--verbose", action="store_true", help="print each video's problems")


def cache_folder(args: argparse.Namespace) -> Path:
    base = Path(args.cache) if args.cache else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / \
        "table-companion" / "bench-replay"
    return base / f"{args.game}-{args.difficulty}-fps{args.fps:g}-ev{args.max_events}-v2"


def ensure_videos(args: argparse.Namespace) -> list[Path]:
    """The benchmark videos, rendering the missing ones."""
    from lab.render.video import VideoSpec, write_game_video

    folder = cache_folder(args)
    out = []
    for seed in range(args.seed, args.seed + args.videos):
        video = folder / f"{args.game}_seed{seed}.mp4"
        if not (video.exists() and video.with_suffix(".jsonl").exists()):
            t0 = time.perf_counter()
            sys.stderr.write(f"bench replay: rendering {video.name} …\n")
            spec = VideoSpec(game=args.game, seed=seed, difficulty=args.difficulty, fps=args.fps,
                             size=(1280, 720), players=4 if args.game == "trigon" else 2,
                             max_events=args.max_events, takeback_prob=TAKEBACK,
                             light_change_prob=LIGHT, nudge_prob=NUDGE)
            write_game_video(spec, folder)
            sys.stderr.write(f"bench replay: {video.name} in {time.perf_counter() - t0:.0f} s\n")
        out.append(video)
    return out


def run(args: argparse.Namespace) -> int:
    import cv2

    from lab.evaluate.videos import VideoScore, run_file
    from vision.track import TrackerOptions
    from vision.track.reader import ReaderObserver, ReaderUnavailableError

    if args.videos < 1:
        raise CliError("--videos must be at least 1")
    if args.max_events is not None and args.max_events < 1:
        raise CliError("--max-events must be at least 1")
    kinds = [k.strip() for k in args.observer.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in ("oracle", "locator", "reader")]
    if unknown or not kinds:
        raise CliError(f"--observer {args.observer}: choose from oracle, locator, reader")
    renderer = getattr(args, "renderer", "project")
    if renderer == "povray":
        from lab.bench import replay_povray

        if args.game not in replay_povray.GAMES:
            raise CliError(f"--renderer povray: renderer B draws no {args.game} games to replay "
                           f"(choose --game {', '.join(replay_povray.GAMES)})")
        cv2.setNumThreads(args.threads)
        return replay_povray.run(args, kinds)
    if args.max_events is None:
        args.max_events = 12
    cv2.setNumThreads(args.threads)
    if args.game in ("blokus", "blokus_duo"):
        return _run_blokus(args, kinds)
    videos = ensure_videos(args)
    if args.misread_rate > 0 and "oracle" in kinds:
        kinds.insert(kinds.index("oracle") + 1, "misreads")
    rows: list[list[Any]] = []
    notes: list[str] = []
    options = TrackerOptions(stable_seconds=args.stable)
    if args.game != "triolet":
        return _run_pictures(args, videos, kinds)
    for kind in kinds:
        observer = None
        if kind == "reader":
            try:
                observer = ReaderObserver(args.game)
            except ReaderUnavailableError as exc:
                notes.append(f"reader: not measured ({exc})")
                continue
        scores: list[VideoScore] = []
        label = f"oracle, {args.misread_rate:.0%} misread" if kind == "misreads" else kind
        for video in videos:
            if kind == "misreads":
                s = run_file(video, "oracle", options, None, misread_rate=args.misread_rate)
            else:
                s = run_file(video, kind, options, observer)
            scores.append(s)
            _progress(label, video, s, args.verbose)
        rows.append(_row(label, scores))
    _print(args, videos, rows, notes)
    return 0


HEADERS = ["observer", "videos", "moves", "exact %", "games exact", "false events", "missed",
           "illegal reports", "undos", "corrections", "latency ms (median)", "latency ms (p90)",
           "fps tracker", "fps with decode"]


def _print(args: argparse.Namespace, videos: list[Path], rows: list[list[Any]], notes: list[str]) -> None:
    print(format_table(HEADERS, rows, title=f"companion bench replay --game {args.game}: {len(videos)} videos, "
                                            f"{args.difficulty}, 1280x720 @ {args.fps:g} fps, "
                                            f"cv2 threads {args.threads}"))
    for n in notes:
        print(n)


def _run_pictures(args: argparse.Namespace, videos: list[Path], kinds: list[str]) -> int:
    """Trigon and the tile games: the rest tracker with the oracle (labels) or the real reader."""
    from lab.evaluate.pictures import run_picture_file
    from vision.track.picture_readers import PictureReaderUnavailableError
    from vision.track.rest_tracker import RestOptions

    rows: list[list[Any]] = []
    notes: list[str] = []
    options = RestOptions(stable_seconds=args.stable)
    for kind in kinds:
        if kind in ("locator", "misreads"):
            notes.append(f"{kind}: not measured for {args.game} (its reader locates and reads in one step)")
            continue
        scores = []
        for video in videos:
            try:
                s = run_picture_file(video, kind, options)
            except PictureReaderUnavailableError as exc:
                notes.append(f"{kind}: not measured ({exc})")
                break
            scores.append(s)
            _progress(kind, video, s, args.verbose)
        if scores:
            rows.append(_row(kind, scores))
    _print(args, videos, rows, notes)
    return 0


def _run_blokus(args: argparse.Namespace, kinds: list[str]) -> int:
    """Blokus Classic and Duo: short games of the engine's random legal moves rendered by the
    square-board renderer (one fixed camera, an arm reaching in for every piece, a wrong piece laid
    and taken back before a quarter of the moves),
    followed by the rest tracker with the oracle or the real square reader."""
    from lab.evaluate.pictures import score_blokus_game
    from lab.render.blokus import blokus_game_frames
    from vision.track.rest_tracker import RestOptions

    players = 4 if args.game == "blokus" else 2
    games = [(f"{args.game}_seed{seed}", blokus_game_frames(seed, args.game, players, args.max_events, takeback=0.25))
             for seed in range(args.seed, args.seed + args.videos)]
    rows: list[list[Any]] = []
    notes = [f"{args.game}: frames from lab/render/blokus.py ({players} players, {args.max_events} pieces a game, "
             f"wrong pieces taken back before 25 % of them, {args.fps:g} fps)"]
    options = RestOptions(stable_seconds=args.stable)
    for kind in kinds:
        if kind in ("locator", "misreads"):
            notes.append(f"{kind}: not measured for {args.game} (its reader locates and reads in one step)")
            continue
        scores = []
        for name, game in games:
            s = score_blokus_game(name, game, kind, options, args.fps)
            scores.append(s)
            _progress(kind, Path(name), s, args.verbose)
        rows.append(_row(kind, scores))
    print(format_table(HEADERS, rows, title=f"companion bench replay --game {args.game}: {len(games)} games"))
    for n in notes:
        print(n)
    return 0


def _progress(label: str, video: Path, s: Any, verbose: bool) -> None:
    """One line per video on stderr (and its problems with ``--verbose``)."""
    sys.stderr.write(f"bench replay: {label} {video.stem}: {s.exact_moves}/{s.truth_moves} exact, "
                     f"{s.false_events} false, {s.missed} missed\n")
    if verbose:
        for p in s.problems:
            sys.stderr.write(f"    {p}\n")


def _row(kind: str, scores: list[Any]) -> list[Any]:
    moves = sum(s.truth_moves for s in scores)
    exact = sum(s.exact_moves for s in scores)
    lat = sorted(x for s in scores for x in s.latencies_ms)
    frames = sum(s.frames for s in scores)
    tracker_s = sum(s.tracker_seconds for s in scores)
    total_s = sum(s.total_seconds for s in scores)
    p90 = lat[min(len(lat) - 1, int(0.9 * len(lat)))] if lat else float("nan")
    return [kind, len(scores), moves, round(100.0 * exact / max(1, moves), 1), sum(1 for s in scores if s.exact),
            sum(s.false_events for s in scores), sum(s.missed for s in scores),
            sum(s.illegal_reports for s in scores), sum(s.undos for s in scores),
            sum(s.corrections for s in scores),
            round(statistics.median(lat), 0) if lat else float("nan"), round(p90, 0),
            round(frames / max(1e-9, tracker_s), 1), round(frames / max(1e-9, total_s), 1)]
