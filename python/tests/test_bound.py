"""bound() against `tilesched bound --json` (tier 1 in several modes, tier 2)."""

import pytest

import tilesched
from conftest import EXAMPLES, benchmark


def without_time(bound):
    return {key: value for key, value in bound.items() if key != "time_s"}


@pytest.mark.parametrize("number, flags, keywords", [
    (5, [], {}),
    (8, ["--rules", "algebra", "--k-limit", "reduction"], dict(rules="algebra", k_limit="reduction")),
    (11, ["--matmul-reduction", "native_k"], dict(matmul_reduction="native_k")),
])
def test_same_as_bound_json(cli, number, flags, keywords):
    expected = cli.json("bound", benchmark(number), "--json", *flags)
    got = tilesched.bound(tilesched.Problem.load(benchmark(number)), **keywords)
    assert without_time(got) == without_time(expected)
    parts = ("compute", "io", "traffic", "mixed", "phase", "capacity", "coupled", "shared",
             "squeeze", "held")
    assert got["lower_bound"] == max(got[part] for part in parts)
    assert got["time_s"] >= 0


@pytest.mark.parametrize("path", [benchmark(7), EXAMPLES / "chained_matmul.json"])
def test_tier2_same_as_the_command(cli, path):
    expected = cli.json("bound", path, "--json", "--tier2", "--time-limit", 60)
    got = tilesched.bound(path, tier2=True, time_limit=60)
    assert got["tier2"] == expected["tier2"] > 0
    assert "converged" in got.pop("tier2_summary")
    assert without_time(got) == without_time(expected)


def test_split_same_as_the_command(cli):
    # Benchmark 7 has four link components; priced apart they meet its golden schedule.
    expected = cli.json("bound", benchmark(7), "--json", "--split", "--time-limit", 60)
    got = tilesched.bound(benchmark(7), split=True, time_limit=60)
    assert got["split"] == expected["split"] == got["lower_bound"]
    assert got["set_by"] == "split"
    assert got["split"] <= 130764.79999999999
    assert "4 link components" in got.pop("split_summary")
    assert "tier2" not in got


def test_split_components_and_a_schedule_by_component(cli, tmp_path):
    # The same components as the command, and a schedule's latency split among them: each
    # share at least its component's value, the shares adding up to the latency.
    result = tilesched.schedule(benchmark(7), strategy="greedy", iterations=1)
    path = tmp_path / "s.json"
    result.schedule.save(path)
    expected = cli.json("bound", benchmark(7), "--json", "--split", "--schedule", path, "--time-limit", 60)
    got = tilesched.bound(benchmark(7), split=True, schedule=result, time_limit=60)
    assert got["split_components"] == expected["split_components"]
    assert got["schedule_latency"] == expected["schedule_latency"] == pytest.approx(result.latency)
    shares = [c["schedule_share"] for c in got["split_components"]]
    assert sum(shares) == pytest.approx(result.latency, rel=1e-12)
    assert all(c["schedule_share"] >= c["value"] for c in got["split_components"])
    with pytest.raises(ValueError, match="schedule needs split=True"):
        tilesched.bound(benchmark(7), schedule=result)


def test_cut_is_the_command(cli, tmp_path):
    problem = tilesched.Problem.load(benchmark(7))
    part = problem.cut([3, 0, 1])
    out = tmp_path / "cut.json"
    cli.run("cut", benchmark(7), "--ops", "0-1,3", "-o", out)
    assert part.to_dict() == tilesched.Problem.load(out).to_dict()
    assert part.num_ops == 3
    assert part.ops[2].name == "op 3"
    with pytest.raises(ValueError, match="op 99 is out of range"):
        problem.cut([99])


def test_a_schedule_never_beats_the_bound():
    problem = tilesched.Problem.load(benchmark(3))
    result = tilesched.schedule(problem, iterations=50)
    assert result.latency >= tilesched.bound(problem)["lower_bound"] * (1 - 1e-9)
    assert result.lower_bound == tilesched.bound(problem)["lower_bound"]


def test_bad_input(cli):
    with pytest.raises(ValueError) as error:
        tilesched.bound(benchmark(1), rules="loose")
    assert cli.error("bound", benchmark(1), "--rules", "loose") == "--rules: " + str(error.value)
    with pytest.raises(ValueError) as error:
        tilesched.bound(benchmark(1), tier2=True, time_limit=-1)
    assert cli.error("bound", benchmark(1), "--tier2", "--time-limit", -1) == "--" + str(error.value).replace("_", "-")
    with pytest.raises(ValueError):
        tilesched.bound(benchmark(1), split=True, time_limit=-1)
    with pytest.raises(ValueError):
        tilesched.bound("/nonexistent.json")
