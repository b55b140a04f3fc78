"""tilesched: search-based scheduling of tiled tensor DAGs on a two-level memory, from Python.

The same libraries as the `tilesched` command line (docs/python.md):

    import tilesched
    problem = tilesched.import_onnx("data/models/gpt_block.onnx",
                                    tilesched.Hardware.load("configs/hardware/contest_like.json"))
    result = tilesched.schedule(problem, time_limit=5)
    print(result.latency, result.lower_bound, result.optimal)
    result.schedule.save("gpt.solution.json")
    tilesched.evaluate(problem, result.schedule).to_pandas()
    rows = tilesched.sweep(["data/benchmarks/mlsys-2026-1.json"], capacity="20000:80000:x2",
                           iterations=200)
    rows.to_pandas()

Problem, Schedule, Hardware: inputs and outputs (load, from_dict, to_dict, save).
import_onnx: an ONNX model on a hardware description. schedule: the search. evaluate: the
judge. bound: the lower bound. sweep, compare: the workflows. report: the HTML report.
Bad input raises ValueError with the command line's one-line message; an invalid schedule
raises InvalidSchedule; Ctrl-C stops a search with its best result in Interrupted.result.
"""

import json
import os

from . import _core
from ._core import Hardware, Improvement, Op, Problem, ProblemHardware, Schedule, Tensor
from ._errors import InvalidSchedule, Interrupted
from ._results import Evaluation, Rows, ScheduleResult, report_page

__all__ = [
    "Problem", "Schedule", "Hardware", "ProblemHardware", "Op", "Tensor", "Improvement",
    "import_onnx", "schedule", "evaluate", "bound", "sweep", "compare", "report",
    "Rows", "Evaluation", "ScheduleResult", "InvalidSchedule", "Interrupted", "STRATEGIES",
]

#: The search strategies (`--strategy` of the commands, schedule(strategy=...)).
STRATEGIES = tuple(_core.strategy_names())


def _plain(value):
    # JSON for the values Python code tends to pass: paths, ranges, numpy scalars and arrays.
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, range):
        return list(value)
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError("{!r} is not a number, a string or a list of them".format(value))


def _json(value):
    return json.dumps(value, default=_plain)


def _entries(settings):
    """(key, JSON text) of the settings that are given: search preset keys (configs/README.md)."""
    return [(key, _json(value)) for key, value in settings.items() if value is not None]


def _list_text(value):
    """A list setting in the command line's syntax: "a,b" (a string is passed as it is)."""
    if value is None or isinstance(value, str):
        return value
    return ",".join(str(_plain(item) if not isinstance(item, (str, int, float)) else item)
                    for item in value)


def _problem(problem):
    return Problem.load(os.fspath(problem)) if isinstance(problem, (str, os.PathLike)) else problem


def _schedule(schedule):
    if isinstance(schedule, ScheduleResult):
        return schedule.schedule
    if isinstance(schedule, (str, os.PathLike)):
        return Schedule.load(os.fspath(schedule))
    if isinstance(schedule, dict):
        return Schedule.from_dict(schedule)
    return schedule


def import_onnx(path, hardware, *, fold=True):
    """A Problem from an ONNX model, with costs from a hardware description.

    As `tilesched import MODEL.onnx --hardware HW.json`: `hardware` is a Hardware or the path of
    one (configs/hardware/*.json); fold=False keeps chains of elementwise ops apart (--no-fold).
    A node outside the mapping of docs/import.md raises ValueError naming it.
    """
    if not isinstance(hardware, Hardware):
        hardware = Hardware.load(os.fspath(hardware))
    return _core.import_onnx(os.fspath(path), hardware, fold)


def schedule(problem, *, time_limit=None, iterations=None, strategy="portfolio", threads=0,
             seed=1, gap=0.0, tier2_first=None, rules="contest", matmul_reduction="full_k",
             k_limit="native", on_improvement=None, start=None, **options):
    """Searches for the lowest-latency valid schedule of `problem` (as `tilesched schedule`).

    problem: a Problem (or a problem file's path).
    time_limit: wall-clock budget in seconds; iterations: a work budget instead (then the result
      is the same at any thread count). With neither, 10 seconds.
    strategy: one of STRATEGIES (default "portfolio": greedy, beams of growing width, window
      re-optimization, annealing).
    threads: worker threads (0: all cores). seed: the random seed.
    gap: stop once within this relative gap of the lower bound (0: once proven optimal;
      negative: never).
    tier2_first: seconds of tier 2 of the bound (the covering LP) before the search, at most
      half the time limit; the search stops once it meets that bound.
    rules, matmul_reduction, k_limit: the reading of SPEC section 7 ("contest" | "algebra",
      "full_k" | "native_k", "native" | "reduction").
    on_improvement: called with an Improvement (latency, found_by, time_s, schedule) for every
      better schedule, from the search's threads (holding the GIL); an exception it raises
      stops the search and is raised here.
    start: a valid schedule to start from (a Schedule, a ScheduleResult, a solution file's path
      or its dict; as `schedule --start`): judged first (InvalidSchedule if it breaks a rule),
      and the result is never above it.
    options: any other search preset key (beam_width, anneal_chains, ...: configs/README.md);
      a whole preset file is schedule(problem, **json.load(open("configs/fast.json"))).

    Returns a ScheduleResult: .schedule, .latency, .lower_bound, .gap, .optimal, .found_by,
    .time_s. The GIL is released while it searches. Ctrl-C stops the search and raises
    Interrupted (a KeyboardInterrupt) whose .result is the ScheduleResult of the best schedule
    found. Bad options raise ValueError naming the key.
    """
    problem = _problem(problem)
    settings = dict(time_limit=time_limit, iterations=iterations, strategy=strategy,
                    threads=threads, seed=seed, gap=gap, tier2_first=tier2_first, rules=rules,
                    matmul_reduction=matmul_reduction, k_limit=k_limit)
    settings.update(options)
    fields = _core.schedule(problem, _entries(settings), on_improvement,
                            None if start is None else _schedule(start))
    result = ScheduleResult(problem, fields)
    if fields["interrupted"]:
        raise Interrupted(result)
    return result


def evaluate(problem, schedule, *, rules="contest", matmul_reduction="full_k", k_limit="native"):
    """Judges a schedule under every validity rule and costs it (as `tilesched evaluate --json`).

    problem: a Problem (or a path); schedule: a Schedule, a ScheduleResult, a solution file's
    path or its dict.
    With one reading of SPEC section 7, returns an Evaluation (.total, .subgraphs with the
    breakdown per subgraph, .op_work, .recomputation_time, to_pandas()); an invalid schedule
    raises InvalidSchedule carrying the rule, subgraph, op and tensor.
    With lists of readings (rules=["contest", "algebra"]), judges the schedule under every
    combination and returns Rows, one per combination (rules, matmul_reduction, k_limit, valid,
    error, rule, subgraph, object, total, difference, ratio, recomputation_time), as
    `tilesched evaluate --rules contest,algebra --json`.
    """
    problem = _problem(problem)
    schedule = _schedule(schedule)
    single, text = _core.evaluate(problem, schedule, _list_text(rules),
                                  _list_text(matmul_reduction), _list_text(k_limit))
    data = json.loads(text)
    if single:
        return Evaluation(data, problem, schedule)
    return Rows(data["modes"])


def bound(problem, *, tier2=False, split=False, schedule=None, time_limit=120.0, rules="contest",
          matmul_reduction="full_k", k_limit="native"):
    """The lower bound on every valid schedule's latency (as `tilesched bound --json`).

    Returns a dict: lower_bound (the largest part), set_by (the part that sets it), every part
    (compute, io, traffic, mixed, phase, capacity, coupled, shared, squeeze, held), modes,
    time_s; with tier2=True also tier2, the covering LP's certified bound after up to
    time_limit seconds (0: until the LP converges; docs/bounds.md), and tier2_summary, what it
    did (converged or stopped, contexts priced); with split=True also split, the same LP on
    each link component of the graph, summed (docs/bounds.md "Tier 2 by components"; any size,
    up to time_limit seconds too), split_components (per component: first_op, ops, tensors,
    value, tier2, floor, mixed, tier2_summary) and split_summary. With split=True and a
    schedule (a ScheduleResult, Schedule, dict or path; judged as evaluate() does, so an
    invalid one raises InvalidSchedule) also schedule_latency and each component's
    schedule_share, its subgraphs' latencies, which is at least its value: the components far
    above their value hold the gap (as `tilesched bound --split --schedule`). A schedule whose
    latency equals lower_bound is optimal. Ctrl-C raises KeyboardInterrupt.
    """
    judged = _schedule(schedule) if schedule is not None else None
    text, summary, split_summary = _core.bound(_problem(problem), rules, matmul_reduction, k_limit,
                                               tier2, split, float(time_limit), judged)
    result = json.loads(text)
    if tier2:
        result["tier2_summary"] = summary
    if split:
        result["split_summary"] = split_summary
    return result


def sweep(problems=None, *, plan=None, capacity=None, bandwidth=None, native=None,
          matmul_throughput=None, vector_throughput=None, rules=None, matmul_reduction=None,
          k_limit=None, seeds=None, strategy=None, time_limit=None, iterations=None, config=None,
          hardware=None, jobs=0, shard=None, output=None, format=None, resume=False,
          executor=None):
    """Re-schedules problems over a grid of hardware, modes and seeds (as `tilesched sweep`).

    problems: problem file paths (they replace the plan's). plan: a sweep plan file (--plan,
    configs/sweeps/); the keywords override its settings. Each axis takes a list or a string in
    the command's syntax: capacity=[20000, 40000] or capacity="20000:320000:x2" (geometric),
    "1:9:+2" (arithmetic), both inclusive; an axis left out keeps each problem's own value.
    capacity, bandwidth, native (native w = h); matmul_throughput, vector_throughput (need
    hardware); rules, matmul_reduction, k_limit; seeds. strategy; time_limit (seconds per point,
    default 2) or iterations (a work budget: the rows are the same on any machine); config: a
    search preset file for every point; hardware: a hardware description every problem is
    retargeted to; jobs: points run side by side (0: all cores); shard: "I/N" runs the points
    with index % N == I; output: also write the rows to this file (CSV, or JSON Lines for
    .jsonl; format overrides), resume=True keeping the rows already there.
    executor: a concurrent.futures.Executor (a ThreadPoolExecutor, a ProcessPoolExecutor, a
    dask.distributed Client) that runs the points, one task per point, instead of jobs; the
    problem, plan, preset and hardware paths must then be readable where the tasks run. Not
    with output or resume.

    Returns Rows, one dict per point in point order, with the columns of the command's rows:
    point, of, problem, capacity, bandwidth, native, matmul_throughput, vector_throughput,
    rules, matmul_reduction, k_limit, seed, strategy, status, latency, lower_bound, ratio, gap,
    subgraphs, compute_bound_share, wall_s, message. Rows.notes holds what the sweep reported
    (warnings, failed points). Ctrl-C raises Interrupted with the finished rows in .result.
    """
    definition = dict(capacity=capacity, bandwidth=bandwidth, native=native,
                      matmul_throughput=matmul_throughput, vector_throughput=vector_throughput,
                      rules=rules, matmul_reduction=matmul_reduction, k_limit=k_limit,
                      seeds=seeds, strategy=strategy, time_limit=time_limit,
                      iterations=iterations, format=format, search_config=config)
    definition = {key: value for key, value in definition.items() if value is not None}
    if problems is not None:
        definition["problems"] = [problems] if isinstance(problems, (str, os.PathLike)) else list(problems)
    plan = "" if plan is None else os.fspath(plan)
    hardware = "" if hardware is None else os.fspath(hardware)
    shard = "" if shard is None else str(shard)
    if executor is not None:
        if output is not None or resume:
            raise ValueError("sweep(): output and resume are not for an executor's sweep")
        return _sweep_on(executor, plan, _json(definition), hardware, shard)
    out = _core.sweep(plan, _json(definition), hardware, int(jobs), shard,
                      "" if output is None else os.fspath(output), bool(resume))
    rows = Rows(json.loads(line) for line in out["rows"])
    rows.notes = out["notes"].splitlines()
    if out["interrupted"]:
        raise Interrupted(rows)
    return rows


def _sweep_point(plan, definition, hardware, point):
    """One point's row (JSON text): the task sweep(executor=...) submits."""
    return _core.sweep_point(plan, definition, hardware, point)


def _sweep_on(executor, plan, definition, hardware, shard):
    # The plan is checked here; each task builds it again where it runs, from the same settings.
    points = _core.sweep_points(plan, definition, hardware, shard)
    futures = [executor.submit(_sweep_point, plan, definition, hardware, point) for point in points]
    try:
        for future in futures:
            future.result()
    except KeyboardInterrupt:
        for future in futures:
            future.cancel()
        rows = Rows(json.loads(f.result()) for f in futures
                    if f.done() and not f.cancelled() and f.exception() is None)
        rows.notes = []
        raise Interrupted(rows) from None
    rows = Rows(json.loads(future.result()) for future in futures)
    rows.notes = []
    return rows


def compare(problems, *, strategies=None, seeds=None, time_limit=None, iterations=None,
            threads=0, rules=None, matmul_reduction=None, k_limit=None, **options):
    """Runs search strategies against each other (as `tilesched compare --format jsonl`).

    problems: problem file paths. strategies: names (default: every strategy that searches);
    seeds: one run per seed (default 1, 2, 3). Every run gets the same budget: time_limit
    seconds (default 2) or iterations (then the latencies do not depend on the machine).
    threads, rules, matmul_reduction, k_limit and options: search preset keys for every run.
    Returns Rows, one per problem and strategy: problem, strategy, runs, best, median, worst,
    ratio_to_best, time_to_1pct_s, evaluations_per_s, seconds, lower_bound, ratio_to_bound;
    Rows.caption describes the runs. Ctrl-C raises KeyboardInterrupt.
    """
    if isinstance(problems, (str, os.PathLike)):
        problems = [problems]
    settings = dict(time_limit=time_limit, iterations=iterations, threads=threads, rules=rules,
                    matmul_reduction=matmul_reduction, k_limit=k_limit)
    settings.update(options)
    text, caption = _core.compare([os.fspath(p) for p in problems], _list_text(strategies),
                                  _list_text(seeds), _entries(settings), time_limit is not None,
                                  iterations is not None)
    return Rows((json.loads(line) for line in text.splitlines()), caption=caption)


def report(problem, schedule, path=None, *, rules="contest", matmul_reduction="full_k",
           k_limit="native"):
    """The HTML report of a schedule (as `tilesched report`): the DAG with each subgraph
    outlined (rendered by Graphviz when installed), a timeline bar per subgraph split into
    compute- and memory-bound time, and a table per subgraph. Written to `path` (atomically)
    when given, else returned as a string. An invalid schedule raises InvalidSchedule."""
    problem = _problem(problem)
    schedule = _schedule(schedule)
    if path is None:
        return report_page(problem, schedule, dict(rules=rules, matmul_reduction=matmul_reduction,
                                                   k_limit=k_limit), "report()")
    _core.write_report(problem, schedule, os.fspath(path), rules, matmul_reduction, k_limit,
                       "report()")
    return None
