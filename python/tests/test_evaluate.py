"""evaluate() against `tilesched evaluate --json`; invalid schedules raise InvalidSchedule with
the command's message and where it points."""

import copy
import functools
import json

import pytest

import tilesched
from conftest import EXAMPLES, benchmark

PROLOGUE = EXAMPLES / "prologue_split_k.json"
PROLOGUE_FUSED = EXAMPLES / "prologue_split_k_fused.solution.json"


def test_same_as_evaluate_json(cli, tmp_path, scheduled):
    problem, result = scheduled
    path = tmp_path / "s.json"
    result.schedule.save(path)
    expected = cli.json("evaluate", benchmark(8), path, "--json")
    evaluation = tilesched.evaluate(problem, result.schedule)
    assert evaluation.to_dict() == expected
    assert evaluation.total == expected["total_latency"] == result.latency
    assert list(evaluation.subgraphs) == expected["subgraphs"]
    assert list(evaluation.op_work) == expected["op_work"]
    assert evaluation.recomputation_time == expected["recomputation_time"]
    # A path, a dict and a ScheduleResult are the same schedule.
    assert tilesched.evaluate(benchmark(8), path).to_dict() == expected
    assert tilesched.evaluate(problem, result.schedule.to_dict()).to_dict() == expected
    assert result.evaluate().to_dict() == expected


def test_breakdown_as_a_data_frame(scheduled):
    problem, result = scheduled
    frame = tilesched.evaluate(problem, result.schedule).to_pandas()
    assert len(frame) == len(result.schedule)
    assert {"latency", "compute_time", "memory_time", "steps", "peak_working_set",
            "recomputation_time"} <= set(frame.columns)
    assert frame["latency"].sum() == pytest.approx(result.latency, rel=1e-12)


def test_modes_side_by_side(cli):
    rows = tilesched.evaluate(PROLOGUE, PROLOGUE_FUSED, rules=["contest", "algebra"],
                              k_limit="native,reduction")
    done = cli.run("evaluate", PROLOGUE, PROLOGUE_FUSED, "--rules", "contest,algebra",
                   "--k-limit", "native,reduction", "--json", check=False)
    assert done.returncode == 1  # invalid under one reading
    assert list(rows) == json.loads(done.stdout)["modes"]
    assert [row["valid"] for row in rows] == [False, False, True, True]
    assert rows.to_pandas().shape[0] == 4


@functools.lru_cache(maxsize=None)
def invalid_cases():
    """(problem path, schedule dict, what the error names) for rejections of several rules."""
    base = tilesched.schedule(benchmark(8), iterations=50).schedule.to_dict()
    missing_op = copy.deepcopy(base)
    for key in ("subgraphs", "granularities", "tensors_to_retain", "traversal_orders",
                "subgraph_latencies"):
        missing_op[key] = missing_op[key][:-1]
    reversed_order = copy.deepcopy(base)
    for key in ("subgraphs", "granularities", "tensors_to_retain", "traversal_orders",
                "subgraph_latencies"):
        reversed_order[key] = reversed_order[key][::-1]
    huge_tile = copy.deepcopy(base)
    huge_tile["granularities"][0] = [4096, 4096, 1]
    fused = json.loads(PROLOGUE_FUSED.read_text())
    return [(benchmark(8), missing_op, "op"), (benchmark(8), reversed_order, "tensor"),
            (benchmark(8), huge_tile, "subgraph"), (PROLOGUE, fused, "op")]


@pytest.mark.parametrize("case", range(4))
def test_invalid_schedule(cli, tmp_path, case):
    problem, schedule, names = invalid_cases()[case]
    path = tmp_path / "bad.solution.json"
    path.write_text(json.dumps(schedule))
    with pytest.raises(tilesched.InvalidSchedule) as error:
        tilesched.evaluate(problem, schedule)
    invalid = error.value
    assert isinstance(invalid, ValueError)
    done = cli.run("evaluate", problem, path, check=False)
    assert done.returncode == 1
    assert done.stderr.strip() == "tilesched evaluate: invalid schedule: " + str(invalid)
    assert invalid.message == str(invalid)
    assert invalid.rule is not None and invalid.rule in str(invalid)
    assert getattr(invalid, names) is not None
    if invalid.subgraph is not None:
        assert str(invalid).startswith("subgraph {}: ".format(invalid.subgraph))
    if invalid.op is not None:
        assert "op {}".format(invalid.op) in str(invalid)
    if invalid.tensor is not None:
        assert "tensor {}".format(invalid.tensor) in str(invalid)
    # The side-by-side JSON names the same rule, subgraph and object.
    side = cli.run("evaluate", problem, path, "--rules", "contest,algebra", "--json", check=False)
    contest = json.loads(side.stdout)["modes"][0]
    assert (contest["rule"], contest["subgraph"], contest["object"]) == (
        invalid.rule, invalid.subgraph, invalid.object)


def test_spec_7b_names_rule_subgraph_and_op():
    with pytest.raises(tilesched.InvalidSchedule) as error:
        tilesched.evaluate(PROLOGUE, PROLOGUE_FUSED)
    assert (error.value.rule, error.value.subgraph, error.value.op, error.value.tensor) == (
        "SPEC 7b", 0, 0, None)
    assert tilesched.evaluate(PROLOGUE, PROLOGUE_FUSED, rules="algebra").total > 0


def test_malformed_solution_is_a_value_error(cli, tmp_path):
    bad = {"subgraphs": [[0]], "granularities": [[128, 128]], "tensors_to_retain": [[]]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError) as error:
        tilesched.evaluate(benchmark(1), bad)
    assert not isinstance(error.value, tilesched.InvalidSchedule)
    assert cli.error("evaluate", benchmark(1), path) == "{}: {}".format(path, error.value)


def test_unknown_mode_names(cli):
    with pytest.raises(ValueError) as error:
        tilesched.evaluate(PROLOGUE, PROLOGUE_FUSED, rules="strict")
    assert str(error.value) == cli.error("evaluate", PROLOGUE, PROLOGUE_FUSED, "--rules", "strict")
