#!/usr/bin/python3
"""The short-limit table of docs/scaling.md ("Short limits on the contest benchmarks").

Runs `tilesched schedule data/benchmarks/mlsys-2026-B.json --time-limit L --threads 2 -o OUT
--verbose` RUNS times per benchmark, scores the written schedule with `tilesched evaluate
--json` (the evaluator is the judge) and prints one Markdown row per benchmark: the latency
(median over the runs; the worst run beside it when they differ), the contest winner's full-run
score (`vinci` in data/targets.csv; empty there = invalid, no constraint), whether the worst
run is at or below it, the process's wall time and its overshoot over the limit, and the times
(from the process's start) of the first fused schedule (greedy) and of the first beam result.
Timings are medians over the runs; `uptime` is printed before and after.

With --mlsys the contest entry point `mlsys IN OUT --time-limit L --threads 2` is run instead.
With --stacks 16,64,256 it also runs generated stacks (`tilesched generate stack --blocks N`)
and prints their latency / lower bound, wall time and overshoot.

  scripts/time_limit_table.py [--limit 0.3] [--runs 3] [--only 1,8,13 or none] [--stacks 16,64]
                              [--mlsys] [--bin PATH]
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def stamp(err, pattern, offset):
    """Seconds from the process's start of the first report line matching `pattern`."""
    for line in err.splitlines():
        m = re.match(r"\s*\[\s*([0-9.]+)s\] " + pattern, line)
        if m:
            return float(m.group(1)) + offset
    return None


def run_once(binary, problem, limit, out, mlsys=None):
    cmd = [binary, "schedule", problem, "--time-limit", str(limit), "--threads", "2", "-o", out,
           "--verbose"]
    if mlsys:  # the contest entry point: no report, so no phase times
        cmd = [mlsys, problem, out, "--time-limit", str(limit), "--threads", "2"]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()}")
    m = re.search(r"search started ([0-9.]+) s after the process", proc.stderr)
    offset = float(m.group(1)) if m else 0.0
    ev = subprocess.run([binary, "evaluate", problem, out, "--json"], capture_output=True,
                        text=True)
    if ev.returncode != 0:
        sys.exit(f"evaluate {problem} {out}: {ev.stderr.strip()}")
    report = json.loads(ev.stdout)
    latency = report["total_latency"]
    return {
        "bound": report["lower_bound"]["best"],
        "wall": wall,
        "latency": latency,
        "greedy": stamp(proc.stderr, r"greedy retention", offset),
        "beam": stamp(proc.stderr, r"(fast )?beam width [0-9]+: [0-9]", offset),
    }


def fmt_time(values):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    return f"{statistics.median(values):.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=0.3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="")
    parser.add_argument("--stacks", default="")
    parser.add_argument("--mlsys", action="store_true",
                        help="run the `mlsys` entry point instead of `tilesched schedule`")
    parser.add_argument("--bin", default=os.path.join(ROOT, "build/src/cli/tilesched"))
    args = parser.parse_args()
    mlsys = os.path.join(os.path.dirname(args.bin), "mlsys") if args.mlsys else None
    targets = {}
    with open(os.path.join(ROOT, "data/targets.csv")) as f:
        rows = [line for line in f if not line.startswith("#")]
    for row in csv.DictReader(rows):
        targets[int(row["bench"])] = row
    if args.only == "none":
        benches = []
    else:
        benches = [int(b) for b in args.only.split(",")] if args.only else sorted(targets)
    print(f"load before: {uptime()}")
    print()
    print(f"| bench | ops | latency (evaluator) | vinci | at most vinci | wall s | overshoot ms "
          f"| first fused schedule s | first beam s |")
    print("|---|---|---|---|---|---|---|---|---|")
    ok_count = 0
    overshoots = []
    with tempfile.TemporaryDirectory() as tmp:
        for b in benches:
            problem = os.path.join(ROOT, f"data/benchmarks/mlsys-2026-{b}.json")
            runs = [run_once(args.bin, problem, args.limit, os.path.join(tmp, "out.json"), mlsys)
                    for _ in range(args.runs)]
            latencies = [r["latency"] for r in runs]
            worst = max(latencies)
            median = statistics.median(latencies)
            vinci = targets[b]["vinci"]
            ok = not vinci or worst <= float(vinci)
            ok_count += ok
            wall = statistics.median(r["wall"] for r in runs)
            overshoots.append(1000 * (wall - args.limit))
            shown = f"{median:.1f}" + (f" (worst {worst:.1f})" if worst != median else "")
            print(f"| {b} | {targets[b]['ops']} | {shown} | {vinci or 'invalid'} | "
                  f"{'ok' if ok else 'NO'} | {wall:.3f} | {1000 * (wall - args.limit):.0f} | "
                  f"{fmt_time([r['greedy'] for r in runs])} | "
                  f"{fmt_time([r['beam'] for r in runs])} |", flush=True)
        if args.stacks:
            print()
            print("| stack (blocks) | ops | latency / bound | wall s | overshoot ms | "
                  "first fused schedule s |")
            print("|---|---|---|---|---|---|")
        for n in [int(x) for x in args.stacks.split(",") if x]:
            problem = os.path.join(tmp, f"stack{n}.json")
            subprocess.run([args.bin, "generate", "stack", "--blocks", str(n), "-o", problem],
                           check=True)
            runs = [run_once(args.bin, problem, args.limit, os.path.join(tmp, "out.json"), mlsys)
                    for _ in range(args.runs)]
            ratio = statistics.median(r["latency"] / r["bound"] for r in runs)
            wall = statistics.median(r["wall"] for r in runs)
            overshoots.append(1000 * (wall - args.limit))
            print(f"| {n} | {15 * n} | {ratio:.3f} | {wall:.3f} | "
                  f"{1000 * (wall - args.limit):.0f} | {fmt_time([r['greedy'] for r in runs])} |",
                  flush=True)
    print()
    if overshoots:
        print(f"at most vinci (every run): {ok_count} of {len(benches)}; overshoot median "
              f"{statistics.median(overshoots):.0f} ms, worst {max(overshoots):.0f} ms")
    print(f"load after: {uptime()}")


if __name__ == "__main__":
    main()
