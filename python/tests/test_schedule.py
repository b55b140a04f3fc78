"""schedule() against `tilesched schedule` (same schedule, latency and bound for a work budget),
its callback, the GIL, Ctrl-C, and bad options."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import tilesched
from conftest import ROOT, benchmark


def cli_schedule(cli, tmp_path, problem, *flags):
    out, summary = tmp_path / "s.json", tmp_path / "summary.json"
    cli.run("schedule", problem, "-o", out, "--summary", summary, "--quiet", *flags)
    return json.loads(out.read_text()), json.loads(summary.read_text())


@pytest.mark.parametrize("number, flags, keywords", [
    (8, ["--iterations", 200, "--seed", 3, "--threads", 2], dict(iterations=200, seed=3, threads=2)),
    (5, ["--iterations", 100, "--strategy", "beam", "--beam-width", 4],
     dict(iterations=100, strategy="beam", beam_width=4)),
    (11, ["--iterations", 100, "--rules", "algebra", "--matmul-reduction", "native_k"],
     dict(iterations=100, rules="algebra", matmul_reduction="native_k")),
])
def test_same_as_the_command(cli, tmp_path, number, flags, keywords):
    solution, summary = cli_schedule(cli, tmp_path, benchmark(number), *flags)
    result = tilesched.schedule(tilesched.Problem.load(benchmark(number)), **keywords)
    assert result.schedule.to_dict() == solution
    assert result.latency == summary["latency"]
    assert result.lower_bound == summary["lower_bound"]
    assert result.gap == summary["gap"]
    assert result.optimal == summary["optimal"]
    assert result.found_by == summary["found_by"]
    assert len(result.schedule) == summary["subgraphs"]
    assert result.modes == summary["modes"]
    assert result.time_s > 0 and result.evaluations > 0 and result.report
    # The evaluator's verdict on the schedule is the reported latency.
    assert tilesched.evaluate(benchmark(number), result.schedule, **result.modes).total == result.latency


def test_tier2_first_and_gap_stop_as_the_command(cli, tmp_path):
    # Benchmark 7 is proven optimal by tier 2 (README): the run stops at the bound.
    _, summary = cli_schedule(cli, tmp_path, benchmark(7), "--time-limit", 60, "--tier2-first", 20)
    result = tilesched.schedule(benchmark(7), time_limit=60, tier2_first=20)
    assert result.optimal and summary["optimal"]
    assert result.reached_gap
    assert result.lower_bound == summary["lower_bound"]
    assert result.latency == summary["latency"]


def test_schedule_saved_is_the_command_s_file(cli, tmp_path):
    result = tilesched.schedule(benchmark(3), iterations=50)
    result.schedule.save(tmp_path / "mine.json")
    done = cli.run("evaluate", benchmark(3), tmp_path / "mine.json", "--json")
    assert json.loads(done.stdout)["total_latency"] == result.latency


def test_on_improvement_hears_every_better_schedule():
    problem = tilesched.Problem.load(benchmark(8))
    heard = []
    result = tilesched.schedule(problem, iterations=200, threads=2, on_improvement=heard.append)
    assert len(heard) >= 2
    latencies = [i.latency for i in heard]
    assert all(a > b for a, b in zip(latencies, latencies[1:]))
    assert latencies[-1] == result.latency
    assert heard[-1].found_by == result.found_by
    assert all(isinstance(i.schedule, tilesched.Schedule) and i.time_s >= 0 for i in heard)
    for improvement in heard:
        assert tilesched.evaluate(problem, improvement.schedule).total == improvement.latency


def test_a_raising_callback_stops_the_search():
    class Enough(Exception):
        pass

    def callback(improvement):
        raise Enough(improvement.latency)

    start = time.monotonic()
    with pytest.raises(Enough):
        tilesched.schedule(benchmark(8), time_limit=30, on_improvement=callback)
    assert time.monotonic() - start < 5


def test_the_gil_is_released_while_searching():
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        tilesched.schedule(benchmark(8), time_limit=1.0, gap=-1)
    finally:
        done.set()
        counter.join()
    assert len(ticks) > 100  # a held GIL would leave about none


def test_ctrl_c_stops_with_the_best_schedule_kept():
    problem = tilesched.Problem.load(benchmark(8))
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(tilesched.Interrupted) as stopped:
        tilesched.schedule(problem, time_limit=60, gap=-1)
    elapsed = time.monotonic() - start
    timer.join()
    assert isinstance(stopped.value, KeyboardInterrupt)
    assert elapsed < 1.5, elapsed  # 0.5 s until the signal, then about a second at most
    result = stopped.value.result
    assert result.latency == tilesched.evaluate(problem, result.schedule).total
    assert result.time_s < 1.5


CHILD = """
import json, sys, tilesched
print("searching", flush=True)
try:
    tilesched.schedule(sys.argv[1], time_limit=120, gap=-1)
    print(json.dumps({"stopped": False}))
except tilesched.Interrupted as stop:
    stop.result.schedule.save(sys.argv[2])
    print(json.dumps({"stopped": True, "latency": stop.result.latency}))
"""


def test_ctrl_c_from_outside_the_process(cli, tmp_path):
    out = tmp_path / "kept.json"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(benchmark(8)), str(out)],
                             stdout=subprocess.PIPE, text=True, env=dict(os.environ), cwd=ROOT)
    assert child.stdout.readline().strip() == "searching"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    start = time.monotonic()
    answer, _ = child.communicate(timeout=30)
    assert time.monotonic() - start < 1.5
    assert child.returncode == 0
    report = json.loads(answer)
    assert report["stopped"]
    evaluated = cli.json("evaluate", benchmark(8), out, "--json")
    assert evaluated["total_latency"] == report["latency"]


def cli_config_error(cli, tmp_path, key, value):
    """The command's message for a search preset with `key`: `value` (the same key checks)."""
    config = tmp_path / "preset.json"
    config.write_text(json.dumps({key: value}))
    message = cli.error("schedule", benchmark(1), "--config", config)
    prefix = "{}: ".format(config)
    assert message.startswith(prefix)
    return message[len(prefix):]


@pytest.mark.parametrize("key, value", [
    ("strategy", "sideways"), ("threads", -1), ("threads", 5000), ("time_limit", -1),
    ("iterations", 1.5), ("seed", "one"), ("gap", "small"), ("tier2_first", -2),
    ("rules", "loose"), ("matmul_reduction", "half_k"), ("k_limit", "none"),
    ("beam_width", 0), ("beam_widht", 4),
])
def test_bad_options_raise_value_error(cli, tmp_path, key, value):
    with pytest.raises(ValueError) as error:
        tilesched.schedule(benchmark(1), **{key: value})
    assert str(error.value) == cli_config_error(cli, tmp_path, key, value)


def test_a_problem_that_fits_nowhere(tmp_path, cli):
    data = json.loads(benchmark(1).read_text())
    data["fast_memory_capacity"] = 2
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as error:
        tilesched.schedule(path, iterations=10)
    assert str(error.value) == cli.error("schedule", path, "--iterations", 10)


def test_start_is_kept_and_judged(cli, tmp_path):
    problem = tilesched.Problem.load(benchmark(4))
    found = tilesched.schedule(problem, iterations=2000, threads=2)
    greedy = tilesched.schedule(problem, strategy="greedy")
    assert found.latency < greedy.latency  # the case under test: greedy alone ends higher
    resumed = tilesched.schedule(problem, strategy="greedy", start=found)
    assert resumed.latency == found.latency
    assert resumed.found_by.startswith("start")
    # The same run from the solution file, as `tilesched schedule --start`.
    path = tmp_path / "start.json"
    found.schedule.save(str(path))
    solution, summary = cli_schedule(cli, tmp_path, benchmark(4), "--strategy", "greedy",
                                     "--start", path)
    assert tilesched.schedule(problem, strategy="greedy", start=path).schedule.to_dict() == solution
    assert summary["latency"] == found.latency
    bad = {"subgraphs": [[0]], "granularities": [[128, 128, 1]], "tensors_to_retain": [[]],
           "traversal_orders": [None]}
    with pytest.raises(tilesched.InvalidSchedule, match="start schedule is invalid"):
        tilesched.schedule(problem, strategy="greedy", start=bad)
