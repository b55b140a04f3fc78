"""Problem, Hardware, Schedule and import_onnx against the files and `tilesched info` / `import`;
bad input of each kind raises ValueError with the command line's message."""

import json
import warnings

import pytest

import tilesched
from conftest import EXAMPLES, HARDWARE, MODELS, benchmark

CONTEST_KEYS = ["widths", "heights", "op_types", "inputs", "outputs", "base_costs",
                "fast_memory_capacity", "slow_memory_bandwidth", "native_granularity"]


def test_load_matches_the_file_and_info(cli):
    path = benchmark(5)
    problem = tilesched.Problem.load(path)
    data = json.loads(path.read_text())
    info = cli.json("info", path, "--json")
    assert problem.num_ops == len(data["op_types"]) == len(problem.ops) == len(info["ops"])
    assert problem.num_tensors == len(data["widths"]) == len(problem.tensors)
    for op, row in zip(problem.ops, info["ops"]):
        assert (op.id, op.type, op.inputs, op.output, op.base_cost, op.name) == (
            row["id"], row["type"], row["inputs"], row["output"], row["base_cost"], "")
    for tensor, row in zip(problem.tensors, info["tensors"]):
        assert (tensor.id, tensor.height, tensor.width, tensor.size, tensor.name) == (
            row["id"], row["rows"], row["cols"], row["rows"] * row["cols"], "")
    assert problem.graph_inputs == info["graph_inputs"]
    assert problem.graph_outputs == info["graph_outputs"]
    hw = problem.hardware
    assert hw.fast_memory_capacity == info["fast_memory_capacity"]
    assert hw.slow_memory_bandwidth == info["slow_memory_bandwidth"]
    assert [hw.native_w, hw.native_h] == info["native_granularity"]
    assert problem.source == str(path)


def test_dict_round_trip():
    path = benchmark(8)
    data = json.loads(path.read_text())
    problem = tilesched.Problem.load(path)
    assert {key: problem.to_dict()[key] for key in CONTEST_KEYS} == {key: data[key] for key in CONTEST_KEYS}
    again = tilesched.Problem.from_dict(problem.to_dict())
    assert again.to_dict() == problem.to_dict()
    assert again.source == ""


def test_save_writes_the_problem_file(tmp_path, cli):
    problem = tilesched.Problem.load(benchmark(3))
    out = tmp_path / "p.json"
    problem.save(out)
    assert tilesched.Problem.load(out).to_dict() == problem.to_dict()
    assert cli.json("info", out, "--json")["ops"] == cli.json("info", benchmark(3), "--json")["ops"]


def test_hardware_and_retarget_match_info(cli):
    hw_path = HARDWARE / "big_accelerator.json"
    hw = tilesched.Hardware.load(hw_path)
    data = json.loads(hw_path.read_text())
    assert hw.name == data["name"]
    assert [hw.native_w, hw.native_h] == data["native_tile"]
    assert hw.fast_memory_bytes == data["fast_memory_bytes"]
    moved = tilesched.Problem.load(benchmark(5)).retarget(hw)
    info = cli.json("info", benchmark(5), "--hardware", hw_path, "--json")
    assert moved.hardware.fast_memory_capacity == info["fast_memory_capacity"]
    assert moved.hardware.slow_memory_bandwidth == info["slow_memory_bandwidth"]
    assert [moved.hardware.native_w, moved.hardware.native_h] == info["native_granularity"]
    assert [op.base_cost for op in moved.ops] == [row["base_cost"] for row in info["ops"]]
    derived = hw.problem_hardware
    assert derived.fast_memory_capacity == info["fast_memory_capacity"]


def test_import_onnx_matches_the_import_command(tmp_path, cli):
    out = tmp_path / "gpt.json"
    model = MODELS / "gpt_block.onnx"
    hw = HARDWARE / "contest_like.json"
    cli.run("import", model, "--hardware", hw, "-o", out)
    problem = tilesched.import_onnx(model, hw)
    written = json.loads(out.read_text())
    got = problem.to_dict()
    # The contest's keys and the model's names; `import` also writes each op's ONNX op types.
    names = ["op_names", "tensor_names"]
    assert {key: got[key] for key in CONTEST_KEYS + names} == {key: written[key] for key in CONTEST_KEYS + names}
    assert set(got) == set(CONTEST_KEYS + names)
    assert [op.name for op in problem.ops] == written["op_names"]
    assert [tensor.name for tensor in problem.tensors] == written["tensor_names"]
    assert tilesched.Problem.from_dict(got).to_dict() == got
    # Both spellings of the hardware, and --no-fold.
    assert tilesched.import_onnx(model, tilesched.Hardware.load(hw)).to_dict() == got
    out_unfolded = tmp_path / "unfolded.json"
    cli.run("import", model, "--hardware", hw, "--no-fold", "-o", out_unfolded)
    unfolded = tilesched.import_onnx(model, hw, fold=False)
    assert unfolded.num_ops == len(json.loads(out_unfolded.read_text())["op_types"]) > problem.num_ops


def test_schedule_files_round_trip(tmp_path):
    path = EXAMPLES / "chained_matmul_retained.solution.json"
    schedule = tilesched.Schedule.load(path)
    data = json.loads(path.read_text())
    assert len(schedule) == len(data["subgraphs"])
    assert schedule.to_dict()["subgraphs"] == data["subgraphs"]
    assert schedule.to_dict()["granularities"] == data["granularities"]
    again = tilesched.Schedule.from_dict(schedule.to_dict())
    assert again.to_dict() == schedule.to_dict()
    schedule.save(tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text()) == schedule.to_dict()


# Bad input: the exception's message is the command line's one-line message.

def test_missing_file(cli):
    with pytest.raises(ValueError) as error:
        tilesched.Problem.load("/nonexistent/p.json")
    assert str(error.value) == cli.error("info", "/nonexistent/p.json")


def test_malformed_json(tmp_path, cli):
    bad = tmp_path / "bad.json"
    bad.write_text('{"widths": [1, 2')
    with pytest.raises(ValueError) as error:
        tilesched.Problem.load(bad)
    assert str(error.value) == cli.error("info", bad)
    with pytest.raises(ValueError):
        tilesched.Schedule.load(bad)


def test_file_of_another_kind(cli):
    solution = EXAMPLES / "chained_matmul_retained.solution.json"
    with pytest.raises(ValueError, match="this is a solution file, not a problem file") as error:
        tilesched.Problem.load(solution)
    assert str(error.value) == cli.error("info", solution)


@pytest.mark.parametrize("change", [
    lambda d: d["widths"].pop(),                       # inconsistent lengths
    lambda d: d["inputs"][0].append(99),               # a bad tensor id
    lambda d: d["op_types"].__setitem__(0, "Conv"),   # an unknown op type
    lambda d: d["widths"].__setitem__(0, 7),           # a shape mismatch
    lambda d: d.__setitem__("slow_memory_bandwidth", "fast"),  # a wrong type
    lambda d: d["outputs"].__setitem__(0, d["inputs"][0][:1]),  # a cycle or a re-written input
])
def test_invalid_problem(tmp_path, cli, change):
    data = json.loads(benchmark(5).read_text())
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as error:
        tilesched.Problem.from_dict(data)
    with pytest.raises(ValueError) as loaded:
        tilesched.Problem.load(path)
    assert str(loaded.value) == cli.error("info", path) == "{}: {}".format(path, error.value)


def test_unknown_key_warns(tmp_path, cli):
    data = json.loads(benchmark(1).read_text())
    data["colour"] = "blue"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    with pytest.warns(UserWarning) as caught:
        tilesched.Problem.load(path)
    done = cli.run("info", path)
    assert "tilesched info: warning: {}\n".format(caught[0].message) in done.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            tilesched.Problem.load(path)


def test_bad_hardware_description(tmp_path, cli):
    data = json.loads((HARDWARE / "contest_like.json").read_text())
    data["fast_memory_byte"] = data.pop("fast_memory_bytes")
    path = tmp_path / "hw.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="fast_memory_byte") as error:
        tilesched.Hardware.load(path)
    assert cli.error("info", benchmark(1), "--hardware", path).endswith(str(error.value))
    with pytest.raises(ValueError):
        tilesched.import_onnx(MODELS / "mlp.onnx", path)


def test_bad_model(tmp_path, cli):
    model = tmp_path / "not_a_model.onnx"
    model.write_bytes(b"\x00\x01 not protobuf")
    hw = HARDWARE / "contest_like.json"
    with pytest.raises(ValueError) as error:
        tilesched.import_onnx(model, hw)
    assert str(error.value) == cli.error("import", model, "--hardware", hw, "-o", tmp_path / "p.json")


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError):
        tilesched.Problem.load(42)
    with pytest.raises(TypeError):
        tilesched.Problem.from_dict({"widths": {1, 2}})
