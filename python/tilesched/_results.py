"""The Python objects results come back as: Rows (a list of dicts with to_pandas()), Evaluation
(what `tilesched evaluate --json` prints) and ScheduleResult (what schedule() returns). They
hold the libraries' JSON as plain Python values; the reports they draw in a notebook
(_repr_html_) are the report library's page."""

import html

from . import _core


class Rows(list):
    """Rows of a table: a list of dicts (one per row, columns in order), with to_pandas()."""

    def __init__(self, rows=(), caption=""):
        super().__init__(rows)
        self.caption = caption

    def to_pandas(self):
        """The rows as a pandas DataFrame (needs pandas: Debian python3-pandas)."""
        try:
            import pandas
        except ImportError as error:
            raise ImportError("to_pandas() needs pandas (Debian package python3-pandas)") from error
        return pandas.DataFrame(list(self))


def _report_frame(page):
    # The report is a whole page with its own style sheet: shown in an iframe, it cannot
    # restyle the notebook around it.
    return ('<iframe srcdoc="{}" style="width: 100%; height: 760px; border: 1px solid #ddd">'
            '</iframe>').format(html.escape(page, quote=True))


def report_page(problem, schedule, modes, label):
    """The report library's HTML page of a judged schedule (tilesched report)."""
    page, _ = _core.report_html(problem, schedule, modes["rules"], modes["matmul_reduction"],
                                modes["k_limit"], label)
    return page


class Evaluation:
    """Evaluate()'s verdict on a valid schedule: what `tilesched evaluate --json` prints.

    total: the total latency. subgraphs: one row per subgraph (ops, granularity, retained,
    sinks, written, split_roots, latency, compute_time, memory_time, tiles, k_steps, steps,
    compute_bound_steps, memory_bound_steps, compute_bound_time, memory_bound_time, loaded,
    stored, peak_working_set, peak_tile, peak_k_step, op_work, recomputation_time).
    op_work: per op, what it computes over the schedule (elements, compute_time, computed
    relative to once). recomputation_time: compute time beyond computing every op once.
    lower_bound: the bound's parts (compute, io, traffic, best). modes: the reading of SPEC
    section 7. warnings: reported latencies that are missing or differ (rule 3.9).
    to_pandas(): the subgraph rows as a DataFrame. In a notebook it draws the report.
    """

    def __init__(self, data, problem, schedule):
        self._data = data
        self._problem = problem
        self._schedule = schedule
        self.total = data["total_latency"]
        self.subgraphs = Rows(data["subgraphs"])
        self.op_work = Rows(data["op_work"])
        self.recomputation_time = data["recomputation_time"]
        self.lower_bound = data["lower_bound"]
        self.modes = data["modes"]
        self.warnings = list(data["warnings"])

    def to_dict(self):
        """The whole `evaluate --json` object."""
        return dict(self._data)

    def to_pandas(self):
        """The per-subgraph breakdown as a pandas DataFrame."""
        return self.subgraphs.to_pandas()

    def _repr_html_(self):
        return _report_frame(report_page(self._problem, self._schedule, self.modes, "evaluate()"))

    def __repr__(self):
        return "<tilesched.Evaluation: total {:.10g}, {} subgraphs>".format(self.total,
                                                                          len(self.subgraphs))


class ScheduleResult:
    """What schedule() returns (as `tilesched schedule --summary` reports it).

    schedule: the best Schedule found (to_dict(), save(path)); latency: its total latency,
    judged by the evaluator; lower_bound: the bound on every valid schedule (tier 1, or tier 2's
    certificate with tier2_first); gap: latency / lower_bound - 1; optimal: the latency meets the
    bound (proven optimal); found_by: the strategy phase that found it; time_s: the search's
    wall time; evaluations: subgraph configurations costed; reached_gap: the run stopped early at
    the requested gap; report: what each strategy phase did; modes: the reading of SPEC
    section 7. evaluate() gives the breakdown; in a notebook it draws the report.
    """

    def __init__(self, problem, fields):
        self.problem = problem
        self.schedule = fields["schedule"]
        self.latency = fields["latency"]
        self.lower_bound = fields["lower_bound"]
        self.gap = fields["gap"]
        self.optimal = fields["optimal"]
        self.found_by = fields["found_by"]
        self.time_s = fields["time_s"]
        self.evaluations = fields["evaluations"]
        self.reached_gap = fields["reached_gap"]
        self.report = list(fields["report"])
        self.modes = {key: fields[key] for key in ("rules", "matmul_reduction", "k_limit")}

    def evaluate(self):
        """The evaluator's breakdown of the schedule (an Evaluation)."""
        from . import evaluate
        return evaluate(self.problem, self.schedule, **self.modes)

    def _repr_html_(self):
        return _report_frame(report_page(self.problem, self.schedule, self.modes, "schedule()"))

    def __repr__(self):
        return ("<tilesched.ScheduleResult: latency {:.10g}, lower bound {:.10g}, gap {:.4%}{}, "
                "{} subgraphs, found by {}>").format(self.latency, self.lower_bound, self.gap,
                                                    " (optimal)" if self.optimal else "",
                                                    len(self.schedule), self.found_by)
