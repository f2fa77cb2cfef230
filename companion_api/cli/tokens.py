"""``companion tokens [--rotate] [--db PATH]`` — show the table's tokens, or replace them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import CliError


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tokens",
        help="show the viewer and table tokens of a companion database, or replace them (--rotate)",
        description="Prints the viewer token and the table token kept in the database that companion serve "
        "uses. With --rotate, new tokens replace them: the old ones stop working at once, also for a "
        "server running on that database, whose phones are told to pair again.",
    )
    p.add_argument("--rotate", action="store_true", help="issue new tokens; the old ones stop working")
    p.add_argument("--db", default=None,
                   help="SQLite file (default: $XDG_DATA_HOME/table-companion/companion.sqlite3)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..settings import default_db_path
    from ..store import Store
    from ..tokens import rotate_tokens

    db = Path(args.db) if args.db else default_db_path()
    if db.is_dir():
        raise CliError(f"--db {db}: is a folder, expected a file")
    if not args.rotate and not db.exists():
        raise CliError(f"--db {db}: no such database (companion serve creates it)")
    try:
        if args.rotate:
            tokens = rotate_tokens(db)
        else:
            store = Store(db)
            try:
                tokens = store.tokens()
            finally:
                store.close()
    except Exception as exc:  # sqlite3.Error, OSError
        raise CliError(f"--db {db}: cannot open the database ({exc})") from None
    print(f"viewer token: {tokens.viewer}")
    print(f"table token: {tokens.table}")
    if args.rotate:
        print("the old tokens no longer work: pair the phones again (companion serve shows the new link)")
    return 0
