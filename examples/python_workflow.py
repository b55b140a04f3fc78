"""tilesched from Python, cell by cell (docs/python.md walks through it): import an ONNX model
onto a chip, schedule it, evaluate the schedule, sweep the fast-memory capacity into a pandas
DataFrame, and plot latency and lower bound with matplotlib. Each `# %%` cell runs as it is in
a notebook (VS Code, Jupyter with jupytext). From the source tree, after a build:

    PYTHONPATH=build/python python3 examples/python_workflow.py [OUT_DIR]   # default out/python

or with the package installed (pip install .). CI runs it (python/tests/test_docs.py,
scripts/ci_python.sh).
"""

# %% Import a model onto a chip
import pathlib
import sys

import matplotlib.pyplot as plt

import tilesched

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "out/python")
out.mkdir(parents=True, exist_ok=True)

hardware = tilesched.Hardware.load("configs/hardware/contest_like.json")
problem = tilesched.import_onnx("data/models/gpt_block.onnx", hardware)
print(problem, problem.hardware)
problem.save(out / "gpt_block.json")  # sweeps and the command line read problem files

# %% Schedule it: 3 seconds of search; Ctrl-C stops early and keeps the best schedule
result = tilesched.schedule(problem, time_limit=3)
print(result)
result.schedule.save(out / "gpt_block.solution.json")

# %% Evaluate: the evaluator's breakdown, one row per subgraph
evaluation = tilesched.evaluate(problem, result.schedule)
breakdown = evaluation.to_pandas()
print(breakdown[["ops", "granularity", "latency", "compute_time", "memory_time",
                 "peak_working_set"]].to_string())
assert evaluation.total == result.latency

# %% Sweep the fast-memory capacity (a work budget per point: the same rows on any machine)
rows = tilesched.sweep([out / "gpt_block.json"], capacity="16384:262144:x2", iterations=200)
sweep = rows.to_pandas()
print(sweep[["capacity", "status", "latency", "lower_bound", "gap"]].to_string())

# %% Plot latency and lower bound against the capacity
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(sweep["capacity"], sweep["latency"], marker="o", label="latency (schedule found)")
ax.plot(sweep["capacity"], sweep["lower_bound"], linestyle="--", marker=".", label="lower bound")
ax.set_xscale("log", base=2)
ax.set_xlabel("fast memory capacity (elements)")
ax.set_ylabel("latency")
ax.set_title("GPT block on contest_like")
ax.legend()
fig.tight_layout()
fig.savefig(out / "capacity.png", dpi=100)
print("wrote", out / "capacity.png")
