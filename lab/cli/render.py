"""``companion render`` — synthetic pictures and game videos with exact truth (lab.render)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from companion_api.cli.common import CliError, seed_number

GAMES = ("triolet", "trigon", "triominos", "trio_domino")
DIFFICULTIES = ("easy", "normal", "hard", "steep")  # lab.render.difficulty (not imported: slow)


def picture_size(text: str) -> tuple[int, int]:
    """An argparse type: a picture size "WxH" (64–4096 px a side)."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 1280x720") from None
    if not (64 <= w <= 4096 and 64 <= h <= 4096):
        raise argparse.ArgumentTypeError(f"size {w}x{h} is outside 64..4096 pixels")
    return w, h


def add_render_arguments(p: argparse.ArgumentParser) -> None:
    """Options shared by ``companion render`` and ``companion bench render``."""
    p.add_argument("--game", required=True, choices=GAMES, help="which game's table to draw")
    p.add_argument("--seed", type=seed_number, default=0, help="first seed (frame i uses seed+i)")
    p.add_argument("--difficulty", choices=DIFFICULTIES, default="normal", help="ranges of camera, light, jitter")
    p.add_argument("--size", type=picture_size, default=None,
                   help="picture size WxH (default: 1280x720 or 1920x1080 at random)")
    p.add_argument("--exclude-style", default="", metavar="NAMES",
                   help="comma-separated style names (typefaces, boards, tiles, tables, lights) never to use")


def register(sub: Any) -> None:
    p = sub.add_parser("render", help="render synthetic table pictures or game videos with exact labels",
                       description="Render synthetic camera frames (PNG + JSON labels + occluder mask) or whole "
                                   "game videos (MP4 + truth record + per-frame labels).")
    add_render_arguments(p)
    p.add_argument("--out", default=None, help="output folder (required unless --bench)")
    p.add_argument("--count", type=int, default=None, help="frames (or videos with --video) to make; default 12")
    p.add_argument("--video", action="store_true", help="render whole simulated games as MP4 videos")
    p.add_argument("--fps", type=float, default=15.0, help="video frame rate (1-60, default 15)")
    p.add_argument("--max-events", type=int, default=None, help="cut each video's game after this many events")
    p.add_argument("--players", type=int, default=2, help="players in video games (Trigon: by variant)")
    p.add_argument("--sheet", action="store_true", help="also write a contact sheet render_GAME.png of the frames")
    p.add_argument("--bench", action="store_true", help="print frames rendered per second and write nothing")
    p.set_defaults(func=run)


def _pool(text: str) -> Any:
    from lab.render.styles import StylePool, all_style_names
    names = {n.strip() for n in text.split(",") if n.strip()}
    known = {n for v in all_style_names().values() for n in v}
    unknown = sorted(names - known)
    if unknown:
        raise CliError(f"unknown style name(s): {', '.join(unknown)} (see docs/RENDERER.md for the list)")
    return StylePool(exclude=frozenset(names))


def run(args: argparse.Namespace) -> int:
    count = 12 if args.count is None else args.count
    if count < 1:
        raise CliError(f"--count must be at least 1, got {count}")
    pool = _pool(args.exclude_style)
    if args.bench:
        return bench(args.game, args.seed, args.difficulty, args.size, count if args.count else 10, pool)
    if not args.out:
        raise CliError("--out DIR is required (or use --bench)")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"{out}: exists and is not a folder")
    if args.video:
        if not 1.0 <= args.fps <= 60.0:
            raise CliError(f"--fps must be between 1 and 60, got {args.fps}")
        return _videos(args, out, count, pool)
    return _stills(args, out, count, pool)


def _stills(args: argparse.Namespace, out: Path, count: int, pool: Any) -> int:
    from lab.render import random_frame
    from lab.render.sheet import contact_sheet, save_sheet

    out.mkdir(parents=True, exist_ok=True)
    thumbs: list[Any] = []
    captions: list[str] = []
    index = (out / "labels.jsonl").open("w", encoding="utf-8")
    t0 = time.perf_counter()
    for i in range(count):
        seed = args.seed + i
        frame = random_frame(args.game, seed, args.difficulty, pool, args.size)
        stem = f"{args.game}_{seed:06d}"
        frame.save(out, stem)
        index.write(json.dumps({"image": f"{stem}.png", "labels": f"{stem}.json", "seed": seed}) + "\n")
        if args.sheet and len(thumbs) < 12:
            thumbs.append(frame.image)
            st = frame.labels.get("style", {})
            look = st.get("board_scheme") or st.get("board_style") or st.get("face", "")
            captions.append(f"{seed} {args.difficulty} {look} {st.get('typeface', '')}".strip())
        sys.stderr.write(f"\rrender {args.game}: {i + 1}/{count} ({(i + 1) / (time.perf_counter() - t0):.1f} frames/s)")
        sys.stderr.flush()
    sys.stderr.write("\n")
    index.close()
    if args.sheet:
        size = save_sheet(contact_sheet(thumbs, captions, cols=4, width=1600), out / f"render_{args.game}.png")
        sys.stderr.write(f"contact sheet: {out / f'render_{args.game}.png'} ({size // 1024} KiB)\n")
    return 0


def _videos(args: argparse.Namespace, out: Path, count: int, pool: Any) -> int:
    from lab.render.video import VideoSpec, write_game_video

    for i in range(count):
        spec = VideoSpec(game=args.game, seed=args.seed + i, difficulty=args.difficulty, fps=args.fps,
                         size=args.size or (1280, 720), players=args.players, max_events=args.max_events)
        try:
            paths = write_game_video(spec, out, pool, progress=True)
        except (ValueError, OSError) as exc:
            raise CliError(str(exc)) from None
        sys.stderr.write(f"wrote {paths['video']}, {paths['record']}, {paths['labels']}\n")
    return 0


def bench(game: str, seed: int, difficulty: str, size: tuple[int, int] | None, count: int, pool: Any) -> int:
    """Render ``count`` frames per size and print frames per second."""
    from companion_api.cli.text_table import format_table
    from lab.render import random_frame
    from lab.render.video import VideoSpec, game_frames

    rows = []
    for sz in ([size] if size else [(1280, 720), (1920, 1080)]):
        random_frame(game, seed, difficulty, pool, sz)  # warm caches (glyphs, maps)
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(count):
            random_frame(game, seed + 1 + i, difficulty, pool, sz)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        rows.append([game, "stills", difficulty, f"{sz[0]}x{sz[1]}", count, round(dt * 1000 / count, 1),
                     round(dc * 1000 / count, 1), round(count / dt, 2)])
        frames = game_frames(VideoSpec(game, seed=seed, difficulty="easy", size=sz, fps=10, max_events=4), pool)
        next(frames)
        t0, c0 = time.perf_counter(), time.process_time()
        n = 0
        for _ in frames:
            n += 1
            if n >= 3 * count:
                break
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        rows.append([game, "video", "easy", f"{sz[0]}x{sz[1]}", n, round(dt * 1000 / max(1, n), 1),
                     round(dc * 1000 / max(1, n), 1), round(n / dt, 2)])
    print(format_table(["game", "kind", "difficulty", "size", "frames", "ms/frame", "cpu ms/frame", "frames/s"],
                       rows, title="companion render --bench (one process; cpu ms excludes waiting for a core)"))
    return 0
