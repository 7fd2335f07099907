"""The README's quick start is what CI runs: its test command appears literally in `.ci/run`."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_quick_start_has_an_install_and_run_command_and_a_test_command():
    run_example, run_tests = quick_start_commands()
    assert run_example.startswith("pip install -e . && graph-opt ")
    assert (ROOT / run_example.split()[-1]).is_file(), "the example ships with the repo"
    assert run_tests.startswith("pip install -e ") and run_tests.endswith("pytest -q")


def test_ci_runs_the_readme_test_command_literally():
    run_tests = quick_start_commands()[1]
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert run_tests in ci_lines
