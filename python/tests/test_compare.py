"""compare() against `tilesched compare --format jsonl --iterations N`; bad input raises
ValueError with the command's message."""

import json

import pytest

import tilesched
from conftest import benchmark

# The columns measured in seconds differ from run to run; the rest is the same for a work budget.
TIMED = {"time_to_1pct_s", "evaluations_per_s", "seconds"}


def untimed(rows):
    return [{key: value for key, value in row.items() if key not in TIMED} for row in rows]


def test_same_rows_as_the_command(cli):
    problems = [benchmark(1), benchmark(5)]
    got = tilesched.compare(problems, strategies=["greedy", "beam", "anneal"], seeds=[1, 2],
                            iterations=60)
    done = cli.run("compare", *problems, "--strategies", "greedy,beam,anneal", "--seeds", "1,2",
                   "--iterations", 60, "--format", "jsonl", "--quiet")
    expected = [json.loads(line) for line in done.stdout.splitlines()]
    assert untimed(got) == untimed(expected)
    assert [(row["problem"], row["strategy"]) for row in got] == [
        (p, s) for p in ("mlsys-2026-1", "mlsys-2026-5") for s in ("greedy", "beam", "anneal")]
    assert all(row["runs"] == 2 and row["best"] <= row["median"] <= row["worst"] for row in got)
    assert "iterations=60" in got.caption
    assert got.to_pandas().shape == (6, 12)


def test_defaults_are_the_command_s(cli):
    got = tilesched.compare(benchmark(2), iterations=20)
    done = cli.run("compare", benchmark(2), "--iterations", 20, "--format", "jsonl", "--quiet")
    expected = [json.loads(line) for line in done.stdout.splitlines()]
    assert untimed(got) == untimed(expected)
    assert [row["strategy"] for row in got] == [s for s in tilesched.STRATEGIES if s != "cover"]
    assert all(row["runs"] == 3 for row in got)


@pytest.mark.parametrize("keywords, flags", [
    (dict(strategies=["greedy", "sideways"]), ["--strategies", "greedy,sideways"]),
    (dict(strategies=["beam", "beam"]), ["--strategies", "beam,beam"]),
    (dict(strategies=[]), ["--strategies", ""]),
    (dict(seeds=[1, 1]), ["--seeds", "1,1"]),
    (dict(seeds=[-1]), ["--seeds", "-1"]),
    (dict(time_limit=1, iterations=5), ["--time-limit", 1, "--iterations", 5]),
    (dict(iterations=0), ["--iterations", 0]),
])
def test_bad_input(cli, keywords, flags):
    with pytest.raises(ValueError) as error:
        tilesched.compare([benchmark(1)], **keywords)
    assert str(error.value) == cli.error("compare", benchmark(1), *flags)


def test_missing_problem(cli):
    with pytest.raises(ValueError) as error:
        tilesched.compare(["/nonexistent.json"], iterations=5)
    assert str(error.value) == cli.error("compare", "/nonexistent.json", "--iterations", 5)
