"""The rule texts shipped with the phone page match docs/spec/RULES.md and cover every rule the engine cites."""

from __future__ import annotations

import json
import re
from pathlib import Path

from companion_api.rules_text import RULES_JSON, RULES_MD, parse_rules, render

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_rules_json_is_generated_from_rules_md() -> None:
    assert RULES_JSON.read_text(encoding="utf-8") == render(RULES_MD.read_text(encoding="utf-8")), \
        "run: python3 -m companion_api.rules_text"


def test_every_rule_the_engine_cites_has_a_text() -> None:
    shipped = json.loads(RULES_JSON.read_text(encoding="utf-8"))
    cited: set[str] = set()
    for path in (ROOT / "engine").rglob("*.py"):
        cited |= set(re.findall(r'"([A-Z]{1,2}-[A-Z]?\d+)"', path.read_text(encoding="utf-8")))
    assert cited and not cited - set(shipped)


def test_a_rule_keeps_its_continuation_lines_and_its_game() -> None:
    md = ("## Triolet (`triolet`)\n\n### Scoring\n"
          "- **T-S9** A pair scores\n  its **sum**; `H8` doubles.\n- **T-S10** Next.\n")
    rules = parse_rules(md)
    assert rules["T-S9"] == {"game": "Triolet", "text": "A pair scores its sum; H8 doubles."}
    assert rules["T-S10"]["text"] == "Next."
