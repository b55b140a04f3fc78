"""The report: report() is `tilesched report`'s page, and results draw it in a notebook
(_repr_html_, the page in an iframe)."""

import html
import os
import re
import shutil

import pytest

import tilesched
from conftest import EXAMPLES


def without_solution_label(page):
    return re.sub(r'<dd id="solution-file">[^<]*</dd>', "", page)


def test_report_is_the_command_s_page(cli, tmp_path, scheduled):
    problem, result = scheduled
    solution = tmp_path / "s.json"
    result.schedule.save(solution)
    theirs = tmp_path / "theirs.html"
    cli.run("report", problem.source, solution, "-o", theirs)
    mine = tmp_path / "mine.html"
    assert tilesched.report(problem, result.schedule, mine) is None
    page = tilesched.report(problem, result.schedule)
    assert without_solution_label(mine.read_text()) == without_solution_label(theirs.read_text())
    assert without_solution_label(page) == without_solution_label(theirs.read_text())
    assert page.count('class="timeline-bar"') == len(result.schedule)


def test_results_draw_the_report_inline(scheduled):
    problem, result = scheduled
    for shown in (result._repr_html_(), result.evaluate()._repr_html_()):
        assert shown.startswith("<iframe srcdoc=")
        page = html.unescape(re.match(r'<iframe srcdoc="([^"]*)"', shown).group(1))
        assert page.startswith("<!DOCTYPE html>")
        assert page.count('class="timeline-bar"') == len(result.schedule)
        assert "cluster" in page  # the DAG with one cluster per subgraph
        if shutil.which("dot") or os.environ.get("TILESCHED_REQUIRE_TOOLS"):
            assert "<svg" in page  # rendered by Graphviz (scripts/test.sh installs it)


def test_report_of_an_invalid_schedule(tmp_path):
    problem = EXAMPLES / "prologue_split_k.json"
    schedule = EXAMPLES / "prologue_split_k_fused.solution.json"
    with pytest.raises(tilesched.InvalidSchedule):
        tilesched.report(problem, schedule)
    with pytest.raises(tilesched.InvalidSchedule):
        tilesched.report(problem, schedule, tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()
    assert "timeline-bar" in tilesched.report(problem, schedule, rules="algebra")


def test_report_to_a_directory_fails_before_the_work(tmp_path, scheduled):
    problem, result = scheduled
    with pytest.raises(ValueError, match="directory"):
        tilesched.report(problem, result.schedule, tmp_path)
