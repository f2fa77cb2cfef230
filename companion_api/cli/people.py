"""``--format table``: what ``check``, ``replay`` and ``moves`` print for people rather than programs
(player names, each move in words, totals and the winner by name). JSON lines stay the default."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from companion_api.cli.text_table import format_table
from engine.core import Header

FORMATS = ("jsonl", "table")


def add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="jsonl",
                   help="jsonl: one JSON object per line (default, for programs); table: a table for people "
                   "with player names, totals and the winner by name")


def seat_name(header: Header, line: Mapping[str, Any]) -> str:
    """Who made an event: the player's name, with the colour in colour games."""
    player, colour = line.get("player"), line.get("colour")
    name = header.players[player] if isinstance(player, int) and 0 <= player < len(header.players) else ""
    if colour:
        return f"{name} ({colour})" if name else str(colour)
    return name


def describe(line: Mapping[str, Any]) -> str:
    """An event in a few words: ``H8=11 I8=3``, ``blue q15,r15,p16``, ``5-5-5 at [0, 0]``…"""
    kind = line.get("attempt") or line.get("type")
    if kind == "place":
        if isinstance(line.get("tiles"), list):
            return " ".join(f"{t['square']}={'W' if t.get('wild') else ''}{t.get('value')}" for t in line["tiles"])
        if "cells" in line:
            cells = line["cells"] if isinstance(line["cells"], str) else ",".join(map(str, line["cells"]))
            return cells
        if "values" in line:
            where = line.get("cell") or []
            fld = f" field {line['field']}" if line.get("field") else ""
            return f"{'-'.join(map(str, line['values']))} at [{', '.join(map(str, where))}]{fld}"
        return "places"
    if kind == "exchange":
        return f"exchanges {line.get('count')}"
    if kind == "pass":
        return "passes"
    if kind == "draw":
        return f"draws {line.get('count', 1)}"
    if kind == "reveal":
        shown = line.get("values", line.get("tiles", []))
        return "reveals " + ", ".join(map(str, shown or [])) if shown else "reveals nothing"
    if kind == "correct":
        return f"corrects #{line.get('target', line.get('seq'))}"
    if kind == "undo":
        return f"takes back #{line.get('target', line.get('seq'))}"
    return str(kind)


def verdict(line: Mapping[str, Any]) -> str:
    if line.get("legal", line.get("type") != "illegal"):
        rules = sorted({str(b.get("rule")) for b in line.get("breakdown", []) if b.get("rule")})
        return "ok" + (f" ({', '.join(rules)})" if rules else "")
    reasons = line.get("reasons", [])
    return "illegal: " + "; ".join(f"{r.get('message')} ({r.get('rule')})" for r in reasons)


def totals_text(totals: Sequence[Any] | None) -> str:
    return " – ".join(str(t) for t in totals) if totals else ""


def _labels(header: Header, totals: Sequence[Any]) -> list[str]:
    if len(totals) == len(header.players):
        return list(header.players)
    return [f"colour {i + 1}" for i in range(len(totals))]


def footer(header: Header, summary: Mapping[str, Any]) -> list[str]:
    """Totals by name, then who won (only once every reveal is in) or why the game is not over."""
    totals = summary.get("player_totals") or summary.get("totals") or []
    labels = _labels(header, totals)
    out = ["Totals: " + " · ".join(f"{name} {pts}" for name, pts in zip(labels, totals, strict=False))]
    pending = [header.players[p] for p in summary.get("reveals_pending", []) or [] if 0 <= p < len(header.players)]
    if not summary.get("ended"):
        out.append("Game not over.")
    elif pending:
        out.append(f"Game over ({summary.get('end_rule')}): waiting for reveals from {', '.join(pending)}.")
    else:
        winners = [header.players[w] for w in summary.get("winner", []) if 0 <= w < len(header.players)]
        label = "Winner" if len(winners) == 1 else "Winners"
        out.append(f"{label}: {' & '.join(winners)} ({summary.get('end_rule')})." if winners
                   else f"Game over ({summary.get('end_rule')}).")
    return out


class EventTable:
    """Collects judged events (``check`` / ``replay`` lines) and prints them as one table."""

    def __init__(self, header: Header, with_frames: bool = False) -> None:
        self.header = header
        self.with_frames = with_frames
        self.rows: list[list[Any]] = []

    def add(self, line: Mapping[str, Any]) -> None:
        if line.get("summary"):
            return
        row: list[Any] = [line.get("seq", len(self.rows) + 1)]
        if self.with_frames:
            ts = line.get("ts")
            row.append("" if ts is None else f"{float(ts):.1f} s")
        row += [seat_name(self.header, line), describe(line), verdict(line),
                line.get("score", 0) if line.get("legal", line.get("type") != "illegal") else 0,
                totals_text(line.get("totals"))]
        self.rows.append(row)

    def print(self, summary: Mapping[str, Any]) -> None:
        heads = ["#"] + (["time"] if self.with_frames else []) + ["player", "move", "verdict", "score", "totals"]
        title = f"{self.header.game}: {', '.join(self.header.players)}"
        sys.stdout.write(format_table(heads, self.rows, title=title) + "\n\n")
        sys.stdout.write("\n".join(footer(self.header, summary)) + "\n")


def print_moves(header: Header, turn: Mapping[str, Any] | None, placements: Sequence[Mapping[str, Any]],
                count_only: bool) -> None:
    """``moves --format table``: the placements of the side to move, numbered, then how many."""
    who = seat_name(header, turn or {}) or "nobody (the game is over)"
    if not count_only and placements:
        rows = [[i + 1, describe(p)] for i, p in enumerate(placements)]
        sys.stdout.write(format_table(["#", "placement"], rows, title=f"{header.game}: {who} to move") + "\n\n")
    n = len(placements)
    sys.stdout.write(f"{n} legal placement{'' if n == 1 else 's'} for {who}.\n")
