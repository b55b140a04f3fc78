"""The package documents itself (help() shows each function's keywords and meaning), and the
worked example of docs/python.md, which is examples/python_workflow.py cell by cell, runs."""

import os
import pydoc
import re
import subprocess
import sys

import tilesched
from conftest import ROOT

DOC = ROOT / "docs" / "python.md"
EXAMPLE = ROOT / "examples" / "python_workflow.py"


def test_every_public_name_has_a_docstring():
    for name in tilesched.__all__:
        if name == "STRATEGIES":
            continue
        assert getattr(tilesched, name).__doc__, name


def test_help_of_schedule_is_useful():
    text = pydoc.render_doc(tilesched.schedule, renderer=pydoc.plaintext)
    for word in ("time_limit", "iterations", "strategy", "threads", "seed", "gap", "tier2_first",
                 "rules", "matmul_reduction", "k_limit", "on_improvement", "Ctrl-C",
                 "ScheduleResult", "ValueError"):
        assert word in text, word


def test_help_of_the_classes_names_their_methods():
    text = pydoc.render_doc(tilesched.Problem, renderer=pydoc.plaintext)
    for word in ("load", "from_dict", "to_dict", "retarget", "ops", "tensors"):
        assert word in text, word


def python_blocks(markdown):
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.S)


def test_the_worked_example_is_the_example_script():
    example = EXAMPLE.read_text()
    section = DOC.read_text().split("## A worked example", 1)[1].split("\n## ", 1)[0]
    blocks = python_blocks(section)
    assert len(blocks) >= 5
    for block in blocks:
        assert block in example, block


def test_the_example_script_runs(tmp_path, cli):
    env = dict(os.environ, MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "capacity.png").stat().st_size > 1000
    # The schedule it saved is valid, and the command line agrees with what it printed.
    evaluated = cli.json("evaluate", tmp_path / "gpt_block.json", tmp_path / "gpt_block.solution.json",
                         "--json")
    assert "latency {:.10g}".format(evaluated["total_latency"]) in done.stdout
