"""The rule texts the phone page shows when a rule id is tapped, taken from ``docs/spec/RULES.md``.

The page works offline, so the texts ship with it as ``static/rules.json``. Regenerate that file
after editing RULES.md::

    python3 -m companion_api.rules_text

A test checks that the shipped file matches RULES.md.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES_MD = ROOT / "docs" / "spec" / "RULES.md"
RULES_JSON = Path(__file__).parent / "static" / "rules.json"

#: Rules cited by the engine that RULES.md does not list (they come from INTERFACES §1).
EXTRA = {"I-1": "Corrections and undos are new events naming an earlier event by its number; an event "
                "that was taken back, or is itself a correction, cannot be amended."}

_RULE = re.compile(r"^- \*\*([A-Z]{1,2}-[A-Z]*\d+)\*\*\s*(.*)$")
_HEADING = re.compile(r"^#{2,}\s*(.*?)\s*$")


def _plain(text: str) -> str:
    """Markdown emphasis and code marks dropped, spaces collapsed."""
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    text = text.replace("`", "")
    return re.sub(r"\s+", " ", text).strip()


def parse_rules(markdown: str) -> dict[str, dict[str, str]]:
    """Every ``- **ID** text`` rule (with its continuation lines) → ``{"text", "game"}``."""
    out: dict[str, dict[str, str]] = {}
    game = ""
    current: str | None = None
    lines: list[str] = []

    def flush() -> None:
        if current is not None:
            out[current] = {"game": game, "text": _plain(" ".join(lines))}

    for line in markdown.splitlines():
        heading = _HEADING.match(line)
        rule = _RULE.match(line)
        if heading or rule or not line.strip() or line.startswith("---"):
            flush()
            current, lines = None, []
            if heading and line.startswith("## "):
                game = re.sub(r"\s*\(`.*?`\)", "", heading.group(1))
            if rule:
                current, lines = rule.group(1), [rule.group(2)]
            continue
        if current is not None:
            lines.append(line.strip())
    flush()
    for rid, text in EXTRA.items():
        out.setdefault(rid, {"game": "", "text": text})
    return out


def render(markdown: str) -> str:
    """The JSON file's text: ``{"ID": {"game": ..., "text": ...}}``, sorted by id."""
    rules = parse_rules(markdown)
    return json.dumps(dict(sorted(rules.items())), ensure_ascii=False, indent=0) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write ``static/rules.json`` from RULES.md."""
    RULES_JSON.write_text(render(RULES_MD.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {RULES_JSON} ({len(json.loads(RULES_JSON.read_text(encoding='utf-8')))} rules)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
