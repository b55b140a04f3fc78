"""Shared fixtures of the Python package's tests: the source tree, and the command line program
the package's answers are checked against (TILESCHED_CLI, set by the ctest test `python`; else
build/src/cli/tilesched). Run them with the package on the path:

    PYTHONPATH=build/python TILESCHED_CLI=build/src/cli/tilesched python3 -m pytest python/tests
"""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "data" / "benchmarks"
EXAMPLES = ROOT / "data" / "examples"
MODELS = ROOT / "data" / "models"
HARDWARE = ROOT / "configs" / "hardware"


def benchmark(n):
    return BENCHMARKS / "mlsys-2026-{}.json".format(n)


class Cli:
    """The `tilesched` program: run(args) -> CompletedProcess (text)."""

    def __init__(self, path):
        self.path = path

    def run(self, *args, check=True):
        done = subprocess.run([self.path, *map(str, args)], capture_output=True, text=True,
                              cwd=ROOT)
        if check and done.returncode != 0:
            raise AssertionError("tilesched {} failed ({}): {}".format(
                " ".join(map(str, args)), done.returncode, done.stderr))
        return done

    def json(self, *args):
        return json.loads(self.run(*args).stdout)

    def error(self, *args):
        """The one-line error of a failing command (exit 2), without the command's name."""
        done = self.run(*args, check=False)
        assert done.returncode == 2, (args, done.returncode, done.stderr)
        lines = [line for line in done.stderr.splitlines() if ": warning: " not in line]
        assert len(lines) == 1, done.stderr
        prefix = "tilesched {}: ".format(args[0])
        assert lines[0].startswith(prefix), lines[0]
        return lines[0][len(prefix):]


@pytest.fixture(scope="session")
def scheduled():
    """(problem, ScheduleResult) of benchmark 8 after 100 iterations (several subgraphs)."""
    import tilesched
    problem = tilesched.Problem.load(benchmark(8))
    return problem, tilesched.schedule(problem, iterations=100)


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("TILESCHED_CLI", str(ROOT / "build" / "src" / "cli" / "tilesched"))
    if not os.access(path, os.X_OK):
        pytest.fail("the tilesched program is needed to check the package against it: " + path)
    return Cli(path)
