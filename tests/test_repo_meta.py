"""The repository's promises: the README's two commands and CI running the README's test command."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ".venv"


def readme_text() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def readme_commands() -> list[str]:
    return re.findall(r"```bash\n(.+?)\n```", readme_text())[:2]


def steps(command: str) -> list[list[str]]:
    """A one-line shell command split at ``&&`` into its steps, each split into words."""
    return [shlex.split(part) for part in command.split("&&")]


def test_readme_opens_with_two_setup_commands() -> None:
    """The title, one sentence, then the two commands, each one line."""
    lines = readme_text().splitlines()
    assert lines[0].startswith("# ")
    rest = [line for line in lines[1:] if line.strip()]
    assert not rest[0].startswith(("#", "```"))  # the one sentence
    assert rest[1:7] == ["```bash", readme_commands()[0], "```", "```bash", readme_commands()[1], "```"]
    cmds = readme_commands()
    assert len(cmds) == 2 and all("\n" not in c for c in cmds)
    assert [Path(steps(cmds[0])[-1][0]).name, *steps(cmds[0])[-1][1:]] == ["companion", "serve"]
    assert steps(cmds[1])[-1][-3:] == ["-m", "pytest", "-q"]
    assert steps(cmds[1])[1][-1] == ".[dev]"


def test_each_command_makes_and_uses_a_virtual_environment() -> None:
    """Debian and Ubuntu refuse ``pip install`` into the system Python (PEP 668): each command makes
    ``.venv`` first, and every later step runs a program from it, never the system's pip or Python."""
    for cmd in readme_commands():
        first, *later = steps(cmd)
        assert first == ["python3", "-m", "venv", VENV], cmd
        assert later, cmd
        for step in later:
            assert step[0].startswith(f"{VENV}/bin/"), step
        assert later[0][:2] == [f"{VENV}/bin/pip", "install"] and "-e" in later[0], cmd


def test_each_command_installs_the_measured_versions() -> None:
    """Both commands install with the constraints file, which pins every package the figures were
    measured with; pyproject's floors are no lower than the pinned releases' minor versions."""
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    for cmd in readme_commands():
        pip = steps(cmd)[1]
        assert pip[pip.index("-c") + 1] == "constraints.txt", cmd
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for req in [*project["dependencies"], *project["optional-dependencies"]["dev"]]:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", req.split(";")[0].strip())
        assert m, req
        name, floor = re.sub(r"[-_.]+", "-", m.group(1)).lower(), m.group(2)
        assert name in pins, f"{name} is not pinned in constraints.txt"
        pinned = [int(x) for x in re.findall(r"\d+", pins[name])[:2]]
        assert [int(x) for x in floor.split(".")[:2]] == pinned, f"{req}: the floor is not the measured {pins[name]}"


def test_the_commands_name_what_the_project_provides() -> None:
    """The installed console script and the extra the test command installs exist in pyproject."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "companion" in project["scripts"]
    assert any(req.startswith("pytest") for req in project["optional-dependencies"]["dev"])


def test_readme_says_how_to_get_venv_on_debian() -> None:
    assert any("python3-venv" in line and "apt install" in line for line in readme_text().splitlines())


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] in ci.splitlines()


def test_the_commands_name_files_that_exist() -> None:
    for cmd in readme_commands():
        for step in steps(cmd):
            for token in step:
                if "/" in token and not token.startswith(("-", f"{VENV}/")):
                    assert (ROOT / token).exists(), token


def test_engine_imports_no_third_party_package_or_io_layer() -> None:
    banned = re.compile(r"^\s*(?:from|import)\s+(numpy|cv2|fastapi|vision|companion_api|calibration)\b", re.M)
    for path in (ROOT / "engine").rglob("*.py"):
        assert not banned.search(path.read_text(encoding="utf-8")), path


def test_every_headline_figure_names_a_bench_command_the_cli_takes() -> None:
    """Each row of the README's "What works" table ends with the command that reproduces its figure;
    every ``companion bench …`` there parses with the CLI's own parser (names and options exist)."""
    from companion_api.cli import build_parser

    section = readme_text().split("## What works", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith(("| part", "| ---"))]
    assert len(rows) >= 8
    commands = []
    for row in rows:
        last = row.strip().strip("|").split("|")[-1]
        found = re.findall(r"`((?:companion|python3) [^`]+)`", last)
        assert found, row
        commands += [c for c in found if c.startswith("companion bench ")]
    assert len(commands) >= 7
    for cmd in commands:
        args = build_parser().parse_args(shlex.split(cmd)[1:])
        assert args.command == "bench", cmd
