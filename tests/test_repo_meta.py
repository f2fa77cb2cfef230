"""The repository's promises: the README's two commands and CI running the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.+?)\n```", text)[:2]


def test_readme_opens_with_two_setup_commands() -> None:
    cmds = readme_commands()
    assert len(cmds) == 2
    assert "pip install" in cmds[0] and "companion" in cmds[0]
    assert "pip install" in cmds[1] and "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] in ci.splitlines()


def test_the_first_command_names_files_that_exist() -> None:
    first = readme_commands()[0]
    for token in first.split():
        if "/" in token and not token.startswith("-"):
            assert (ROOT / token).exists(), token


def test_engine_imports_no_third_party_package_or_io_layer() -> None:
    banned = re.compile(r"^\s*(?:from|import)\s+(numpy|cv2|fastapi|vision|companion_api|calibration)\b", re.M)
    for path in (ROOT / "engine").rglob("*.py"):
        assert not banned.search(path.read_text(encoding="utf-8")), path
