"""sweep() against `tilesched sweep --iterations N` (the same rows), with a plan file, an output
file, an executor and Ctrl-C; bad settings raise ValueError with the command's message."""

import concurrent.futures
import csv
import json
import multiprocessing
import os
import signal
import threading
import time

import pytest

import tilesched
from conftest import HARDWARE, benchmark

PROBLEMS = [benchmark(1), benchmark(3)]


def without_time(rows):
    return [{key: value for key, value in row.items() if key != "wall_s"} for row in rows]


def cli_rows(cli, tmp_path, *args):
    out = tmp_path / "cli.jsonl"
    cli.run("sweep", *args, "-o", out, "--quiet")
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.fixture(scope="module")
def rows():
    return tilesched.sweep(PROBLEMS, capacity="20000:40000:x2", bandwidth=[10, 20], iterations=100)


def test_same_rows_as_the_command(cli, tmp_path, rows):
    expected = cli_rows(cli, tmp_path, *PROBLEMS, "--capacity", "20000:40000:x2", "--bandwidth",
                        "10,20", "--iterations", 100)
    assert len(rows) == len(expected) == 8
    assert without_time(rows) == without_time(expected)
    assert [row["point"] for row in rows] == list(range(8))
    assert all(row["status"] == "ok" and row["latency"] >= row["lower_bound"] for row in rows)


def test_rows_as_a_data_frame(rows):
    frame = rows.to_pandas()
    assert list(frame.columns)[:3] == ["point", "of", "problem"]
    assert frame.shape == (8, 22)
    assert (frame["latency"] >= frame["lower_bound"]).all()


def test_modes_seeds_and_a_plan_file(cli, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"problems": [str(benchmark(5))], "rules": ["contest", "algebra"],
                                "iterations": 50, "capacity": [40000, 80000]}))
    got = tilesched.sweep(plan=plan, capacity=[60000], seeds="1:2:+1")
    expected = cli_rows(cli, tmp_path, "--plan", plan, "--capacity", 60000, "--seeds", "1:2:+1")
    assert without_time(got) == without_time(expected)
    assert len(got) == 4 and {row["capacity"] for row in got} == {60000}


def test_output_file_and_hardware(cli, tmp_path):
    out = tmp_path / "mine.csv"
    hw = HARDWARE / "contest_like.json"
    got = tilesched.sweep([benchmark(5)], native=[64, 128], iterations=30, hardware=hw, output=out)
    theirs = tmp_path / "theirs.csv"
    cli.run("sweep", benchmark(5), "--native", "64,128", "--iterations", 30, "--hardware", hw,
            "-o", theirs, "--quiet")

    def read(path):
        return [{k: v for k, v in row.items() if k != "wall_s"} for row in csv.DictReader(path.open())]

    assert read(out) == read(theirs)
    assert len(got) == 2 and [row["native"] for row in got] == [64, 128]


def test_shard(cli, tmp_path, rows):
    shard = tilesched.sweep(PROBLEMS, capacity="20000:40000:x2", bandwidth=[10, 20],
                            iterations=100, shard="1/3")
    assert without_time(shard) == without_time(rows[1::3])


def test_executor_threads_gives_the_same_rows(rows):
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        got = tilesched.sweep(PROBLEMS, capacity="20000:40000:x2", bandwidth=[10, 20],
                              iterations=100, executor=pool)
    assert without_time(got) == without_time(rows)


def test_executor_processes_gives_the_same_rows(rows):
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=spawn) as pool:
        got = tilesched.sweep(PROBLEMS, capacity="20000:40000:x2", bandwidth=[10, 20],
                              iterations=100, shard="0/2", executor=pool)
    assert without_time(got) == without_time(rows[0::2])


def test_ctrl_c_keeps_the_finished_rows():
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(tilesched.Interrupted) as stopped:
        tilesched.sweep([benchmark(8)], capacity="30000:240000:x2", time_limit=1, jobs=1)
    elapsed = time.monotonic() - start
    timer.join()
    assert elapsed < 2.5, elapsed
    kept = stopped.value.result
    assert 1 <= len(kept) < 4
    assert all(row["status"] == "ok" for row in kept)


def flag_error(cli, *args):
    return cli.error("sweep", *args, "-o", "/tmp/tilesched-never-written.csv")


@pytest.mark.parametrize("keyword, flag, value", [
    ("capacity", "--capacity", "abc"),
    ("capacity", "--capacity", "0"),
    ("bandwidth", "--bandwidth", "1:2:x1"),
    ("seeds", "--seeds", "1,1"),
    ("rules", "--rules", "loose"),
    ("strategy", "--strategy", "sideways"),
    ("iterations", "--iterations", "1,2"),
])
def test_bad_settings(cli, keyword, flag, value):
    with pytest.raises(ValueError) as error:
        tilesched.sweep([benchmark(1)], **{keyword: value})
    message = str(error.value)
    source = "sweep(): " + keyword
    assert message.startswith(source)
    assert flag_error(cli, benchmark(1), flag, value) == flag + message[len(source):]


@pytest.mark.parametrize("keywords, args", [
    (dict(), []),                                                    # no problems
    (dict(problems=["/nonexistent.json"]), ["/nonexistent.json"]),   # a missing problem
    (dict(problems=[benchmark(1)], matmul_throughput=[1e6]),         # throughput without hardware
     [benchmark(1), "--matmul-throughput", "1e6"]),
    (dict(problems=[benchmark(1)], shard="3/2"), [benchmark(1), "--shard", "3/2"]),
    (dict(problems=[benchmark(1)], jobs=-1), [benchmark(1), "--jobs", "-1"]),
    (dict(plan=benchmark(1)), ["--plan", benchmark(1)]),            # a plan of another kind
    (dict(problems=[benchmark(1)], config=benchmark(1)),             # a preset of another kind
     [benchmark(1), "--config", benchmark(1)]),
])
def test_bad_input(cli, keywords, args):
    with pytest.raises(ValueError) as error:
        tilesched.sweep(**keywords)
    assert str(error.value) == flag_error(cli, *args)


def test_bad_plan_key(cli, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"problems": [str(benchmark(1))], "capacit": 2000}))
    with pytest.raises(ValueError) as error:
        tilesched.sweep(plan=plan)
    assert str(error.value) == flag_error(cli, "--plan", plan)


def test_executor_refuses_output():
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        with pytest.raises(ValueError):
            tilesched.sweep([benchmark(1)], output="x.csv", executor=pool)
