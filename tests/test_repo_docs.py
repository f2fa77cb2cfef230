"""The docs describe the product: each design doc stays short enough to read, and no product text
(README, docs, code, tests) speaks of numbered rounds of work — history lives in docs/CHANGELOG.md
as dated entries, and in git."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_DOC_LINES = 600
#: Source texts and contracts, not design docs: their length is not ours to choose.
LONG_ALLOWED = ("docs/rulebooks", "docs/spec")
#: Where product text lives, and which files of it are text.
PRODUCT_ROOTS = ("README.md", "docs", "engine", "vision", "calibration", "companion_api", "lab", "tests", "examples",
                 ".ci")
TEXT_SUFFIXES = {".py", ".md", ".html", ".js", ".css", ".txt", ".toml", ""}
#: The rulebooks are the publishers' texts, quoted as they are.
NOT_OURS = ("docs/rulebooks",)
#: A numbered round of work, or one named as "this", "the previous" …: examples in the first test.
DIARY = re.compile(
    r"\b(?:stops?[ -]\d+|(?:this|that|previous|earlier|next|last|each|every) stop\b|stop[']s\b|rounds? \d+)",
    re.IGNORECASE,
)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def design_docs() -> list[Path]:
    return sorted(p for p in (ROOT / "docs").rglob("*.md") if not _rel(p).startswith(LONG_ALLOWED))


def product_texts() -> list[Path]:
    out: list[Path] = []
    for name in PRODUCT_ROOTS:
        top = ROOT / name
        files = [top] if top.is_file() else [p for p in top.rglob("*") if p.is_file()]
        for p in files:
            rel = _rel(p)
            if p.suffix in TEXT_SUFFIXES and not rel.startswith(NOT_OURS) and "__pycache__" not in rel:
                out.append(p)
    return sorted(out)


def diary_lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []
    return [f"{_rel(path)}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if DIARY.search(line)]


def test_the_diary_pattern_tells_rounds_of_work_from_ordinary_words() -> None:
    stop, rnd = "st" + "op", "rou" + "nd"
    for phrase in (f"{stop} 38's reader", f"since {stop} 7", f"{stop}s 30–32", f"the {stop}-18 net",
                   f"this {stop}", f"Earlier: {stop}'s figure", f"{rnd} 3 of training"):
        assert DIARY.search(phrase), phrase
    for phrase in ("the lattice stops growing", "non-stop", "stop the server", "an early stop",
                   "two rounds", "rounded bold", "frame 7,200,259's glare-washed J14"):
        assert not DIARY.search(phrase), phrase


def test_design_docs_are_each_under_600_lines() -> None:
    docs = design_docs()
    assert any(p.name == "READER.md" for p in docs)  # the walk finds the docs
    long = {_rel(p): n for p in docs if (n := len(p.read_text(encoding="utf-8").splitlines())) >= MAX_DOC_LINES}
    assert not long, f"docs over {MAX_DOC_LINES} lines (move history to docs/CHANGELOG.md): {long}"


def test_no_product_text_speaks_of_numbered_rounds_of_work() -> None:
    texts = product_texts()
    assert any(_rel(p) == "README.md" for p in texts) and any(_rel(p) == "docs/CHANGELOG.md" for p in texts)
    found = [line for p in texts for line in diary_lines(p)]
    assert not found, "say what the code does and why, not which round of work changed it:\n" + "\n".join(found)


def test_the_changelog_is_dated_newest_first() -> None:
    text = (ROOT / "docs" / "CHANGELOG.md").read_text(encoding="utf-8")
    heads = re.findall(r"^## (.+)$", text, re.M)
    assert heads, "no entries"
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", h) for h in heads), heads
    assert heads == sorted(heads, reverse=True)


def test_the_readme_links_docs_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"docs/[\w/.-]+\.(?:md|png)", readme))
    assert "docs/READER.md" in linked
    missing = sorted(d for d in linked if not (ROOT / d).exists())
    assert not missing, missing
