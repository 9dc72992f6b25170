"""The extra reads of a failed GitHub Actions run, started as soon as a rollup page names it.

The history verdicts (:mod:`pr_agent.ci.history`) and the test-report artifacts (:mod:`pr_agent.ci.artifacts`)
need only the failed check's workflow run id, which the rollup page gives; the PR's base branch and head
commit come with the first query. So their chains (run → the workflow's base-branch runs → that run's jobs →
the base job's log; artifact list → zip) start next to the failed job's own log instead of after the whole
look: the critical path is the longest chain, not their sum. Each read is asked once and within the same
bounds as when asked afterwards (the first :data:`history.MAX_RUNS` runs, :data:`artifacts.MAX_RUNS` runs'
artifacts, :data:`history.MAX_BASE_LOGS` base logs, the base run's report artifacts of the failed jobs seen so
far), so the request count does not change; what the final
answer does not use (a run a later page superseded) is read in vain, as a log is.

Only for an answer given from one look (no ``wait``) or at the first failure (``bail_on_first``): while
waiting for the whole CI, a run's history read at the first poll could be out of date by the last one, and
the wait dominates the time anyway.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

from pr_agent.ci import base_reports, history
from pr_agent.ci.artifacts import MAX_RUNS as REPORT_RUNS
from pr_agent.ci.artifacts import RunReports, safe_reports
from pr_agent.ci.rollup import Check
from pr_agent.context import Context
from pr_agent.refs import PRRef

MAX_WORKERS = 8


class Prefetch:
    """``pr(base, head)`` once, then ``failed(check)`` for each failed check as its page arrives; the
    results are read with :meth:`run`, :meth:`base_of`, :meth:`base_log` and :meth:`reports`."""

    def __init__(self, ctx: Context, ref: PRRef, *, history: bool) -> None:
        self.ctx, self.ref, self.history = ctx, ref, history
        self.pool = ctx.gh.pool(MAX_WORKERS)
        self.lock = threading.Lock()
        self.base = ""
        self.head = ""
        self.runs: dict[int, Future[history.Run]] = {}
        self.artifacts: dict[int, Future[RunReports]] = {}
        self.bases: dict[int, Future[history.Base]] = {}  # workflow id -> its latest completed base run
        self.logs: dict[int, Future[list[str] | None]] = {}  # base job id -> the tests it failed
        self.base_arts: dict[int, Future[list[str] | None]] = {}  # base run's report artifact id -> failed tests
        self.names: dict[int, list[str]] = {}  # run id -> names of its failed jobs seen so far
        self.read: dict[int, history.Run] = {}  # run id -> its run, once read
        self.closed = False

    # ------------------------------------------------------------------ feeding
    def pr(self, base: str, head: str) -> None:
        self.base, self.head = base, head

    def failed(self, check: Check) -> None:
        if check.run_id is None or check.bucket != "failed" or check.kind != "check_run" or not self.base:
            return  # the same runs as Analysis.is_actions with a run id
        run_id = check.run_id
        with self.lock:
            if self.closed:
                return
            self.names.setdefault(run_id, [])
            if check.name not in self.names[run_id]:
                self.names[run_id].append(check.name)
            if run_id not in self.artifacts and len(self.artifacts) < REPORT_RUNS:
                self.artifacts[run_id] = self.pool.submit(safe_reports, self.ctx, self.ref, run_id)
            if not self.history:
                return
            if run_id not in self.runs and len(self.runs) < history.MAX_RUNS:
                self.runs[run_id] = self.pool.submit(self._run, run_id)
        self._logs_for(run_id)

    # ------------------------------------------------------------------ chains
    def _run(self, run_id: int) -> history.Run:
        return history.read_run(self.ctx, self.ref, run_id, on_info=self._workflow)

    def _workflow(self, run: history.Run) -> None:
        """The run is read: its workflow's base-branch run next (before its earlier attempts are)."""
        with self.lock:
            self.read[run.run_id] = run
        wid = (run.info or {}).get("workflow_id")
        if not isinstance(wid, int):
            return
        with self.lock:
            if wid not in self.bases and not self.closed:
                self.bases[wid] = self.pool.submit(self._base, wid)
            base = self.bases.get(wid)
        if base is not None:
            base.add_done_callback(lambda _: self._logs_for(run.run_id))

    def _base(self, workflow_id: int) -> history.Base:
        return history.read_base(self.ctx, self.ref, workflow_id, self.base, self.head)

    def _logs_for(self, run_id: int) -> None:
        """Start the base-job logs of a run's failed jobs once its base run's jobs are known (called when a
        failed job is seen and when a base run is read: whichever comes last starts them)."""
        with self.lock:
            run = self.read.get(run_id)
        if run is None:
            return
        wid = (run.info or {}).get("workflow_id")
        base = self.bases.get(wid) if isinstance(wid, int) else None
        if base is None or not base.done() or base.exception() is not None:
            return
        b = base.result()
        jobs = b.jobs
        with self.lock:
            wanted = [n for n in self.names.get(run_id, []) if (jobs.get(n) or {}).get("conclusion") in history.FAILED]
            started = tuple(self.base_arts)
            for a, _ in base_reports.picks(b.artifacts, jobs, wanted, started):
                if a["id"] not in self.base_arts and not self.closed:
                    self.base_arts[a["id"]] = self.pool.submit(base_reports.read_report, self.ctx, self.ref, a)
            for name in self.names.get(run_id, []):
                job = jobs.get(name)
                if not job or job.get("conclusion") not in history.FAILED or not isinstance(job.get("id"), int):
                    continue
                jid = int(job["id"])
                if jid not in self.logs and len(self.logs) < history.MAX_BASE_LOGS and not self.closed:
                    self.logs[jid] = self.pool.submit(history.base_failures, self.ctx, self.ref, jid)

    # ------------------------------------------------------------------ results (None: not prefetched)
    def run(self, run_id: int) -> history.Run | None:
        f = self.runs.get(run_id)
        return f.result() if f is not None else None

    def base_of(self, workflow_id: int) -> history.Base | None:
        f = self.bases.get(workflow_id)
        return f.result() if f is not None else None

    def base_log(self, job_id: int) -> Any:
        """The failing tests of a base job's log; :data:`history.MISSING` when it was not prefetched."""
        f = self.logs.get(job_id)
        return f.result() if f is not None else history.MISSING

    def prefetched_logs(self) -> list[int]:
        return list(self.logs)

    def base_report(self, artifact_id: int) -> Any:
        """The failed tests of a base run's report artifact; :data:`history.MISSING` when not prefetched."""
        f = self.base_arts.get(artifact_id)
        return f.result() if f is not None else history.MISSING

    def prefetched_reports(self) -> tuple[int, ...]:
        return tuple(self.base_arts)

    def reports(self, run_id: int) -> RunReports | None:
        f = self.artifacts.get(run_id)
        return f.result() if f is not None else None

    def close(self) -> None:
        with self.lock:
            self.closed = True
        self.pool.shutdown(wait=True, cancel_futures=True)

