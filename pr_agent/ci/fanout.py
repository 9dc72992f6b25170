"""Start the work on failed checks as soon as the rollup page listing them arrives.

For each failed GitHub Actions job the log download starts right away (at most :data:`MAX_JOBS` at once,
however many jobs failed). The steps and annotations of every failed check run come from one GraphQL
``nodes(ids:)`` query (:mod:`pr_agent.ci.details`) issued once the last rollup page is in (or as soon as 100
ids are waiting, GitHub's ``nodes`` limit): it runs while the logs download, so it costs one request but no
round trip on the critical path. A job is parsed as soon as both its log and that answer are there.

Why one query after the last page rather than one per page: a page's logs take two round trips (302 and the
blob), the next page one, so a single query issued after the last page still lands before the last page's
logs do; the critical path is the same and there is one request per 100 failed check runs instead of one per
page. Why not select steps and annotations in the rollup query itself: GitHub cannot filter the rollup's
contexts by conclusion, so the query that is on the critical path (and repeated on every ``--wait`` poll) would
carry the steps and annotations of every passed check as well.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from pr_agent.ci.analyze import Analysis, analyze_check, fetch_log, quick_analysis
from pr_agent.ci.details import MAX_IDS, CheckDetails, fetch_details
from pr_agent.ci.rollup import Check, check_from_node, mark_required
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.refs import PRRef

MAX_JOBS = 16  # concurrent log downloads and parses
Key = tuple[str, str, int]


def key_of(check: Check) -> Key:
    return (check.kind, check.name, check.check_run_id or 0)


def _done(value: Any) -> Future[Any]:
    f: Future[Any] = Future()
    f.set_result(value)
    return f


def _close(value: Any) -> None:
    if value is not None and not isinstance(value, PrAgentError) and hasattr(value, "close"):
        value.close()


def _outcome(f: Future[Any]) -> tuple[bool, Any]:
    """(ok, result or exception) of a finished future (a cancelled one is an error)."""
    if f.cancelled():
        return False, PrAgentError("cancelled", "The work was cancelled.", suggestion="Call again.")
    err = f.exception()
    return (False, err) if err is not None else (True, f.result())


class FanOut:
    """The failed checks of one poll: ``page(nodes, required)`` per rollup page, then ``results()``."""

    def __init__(self, ctx: Context, ref: PRRef, skip: Callable[[Key], bool],
                 on_failed: Callable[[Check], None] | None = None) -> None:
        self.ctx, self.ref, self.skip, self.on_failed = ctx, ref, skip, on_failed
        self.jobs: ThreadPoolExecutor = ctx.gh.pool(MAX_JOBS)
        self.queries: ThreadPoolExecutor = ctx.gh.pool(2)
        self.started: dict[Key, Future[Analysis]] = {}
        self._best: dict[tuple[str, str, str, str], Check] = {}
        self._ids: list[str] = []
        self._chunk: Future[dict[str, CheckDetails]] = Future()
        self._lock = threading.Lock()
        self._join_lock = threading.Lock()

    # ------------------------------------------------------------------ feeding
    def page(self, nodes: list[dict[str, Any]], required: list[str]) -> None:
        """One rollup page: start every failed check on it that is not superseded by a later run seen so far."""
        checks = mark_required([c for c in (check_from_node(n) for n in nodes if n) if c is not None], required)
        for check in checks:
            old = self._best.get(check.key)
            if old is not None and (old.check_run_id or 0, old.started_at or "9999") >= \
                    (check.check_run_id or 0, check.started_at or "9999"):
                continue
            self._best[check.key] = check
            if check.bucket == "failed":
                self.start(check)

    def start(self, check: Check) -> None:
        if self.on_failed is not None:  # the run's own extra reads (pr_agent.ci.prefetch) start now too
            self.on_failed(check)
        key = key_of(check)
        if key in self.started or self.skip(key):
            return
        quick = quick_analysis(check)
        if quick is not None:
            self.started[key] = _done(quick)
            return
        details = self._details_of(check)
        log: Future[Any] = self.jobs.submit(fetch_log, self.ctx, self.ref, check) \
            if Analysis(check).is_actions else _done(None)
        ctx = self.ctx
        self.started[key] = self._join(
            lambda raw, d: analyze_check(check, raw, d, timeout=ctx.gh.timeout, cancel=ctx.cancel), log, details)

    def close(self) -> None:
        """No more pages: ask for the steps and annotations of the check runs still waiting."""
        self._flush()

    # ------------------------------------------------------------------ results
    def results(self) -> dict[Key, Analysis]:
        self.close()
        return {k: f.result() for k, f in self.started.items()}

    def shutdown(self) -> None:
        """Stop (after an error): nothing waits for an answer that will never be asked for."""
        with self._lock:
            chunk, self._ids = self._chunk, []
        if not chunk.done():  # callbacks run here: never under the lock
            chunk.set_exception(PrAgentError("cancelled", "The read of the check runs was abandoned.",
                                             suggestion="Call again."))
        self.jobs.shutdown(wait=True, cancel_futures=True)
        self.queries.shutdown(wait=True, cancel_futures=True)

    # ------------------------------------------------------------------ internals
    def _details_of(self, check: Check) -> Future[CheckDetails | None]:
        node_id = check.node_id
        if not node_id:
            return _done(CheckDetails(refused="no node id"))
        with self._lock:
            chunk = self._chunk
            self._ids.append(node_id)
            full = len(self._ids) >= MAX_IDS
        if full:
            self._flush()
        out: Future[CheckDetails | None] = Future()
        chunk.add_done_callback(lambda f: _relay(f, out, lambda got: got.get(node_id)))
        return out

    def _flush(self) -> None:
        with self._lock:
            ids, chunk = self._ids, self._chunk
            if not ids:
                return
            self._ids, self._chunk = [], Future()

        def run() -> None:
            try:
                chunk.set_result(fetch_details(self.ctx, self.ref, ids))
            except BaseException as exc:  # handed to every job waiting for it
                chunk.set_exception(exc)

        self.queries.submit(run)

    def _join(self, fn: Callable[..., Analysis], *futures: Future[Any]) -> Future[Analysis]:
        """``fn(*results)`` on the job pool once every future is done; the first error otherwise."""
        out: Future[Analysis] = Future()
        left = [len(futures)]

        def ready(_: Future[Any]) -> None:
            with self._join_lock:
                left[0] -= 1
                if left[0]:
                    return
            outcomes = [_outcome(f) for f in futures]
            failed = [v for ok, v in outcomes if not ok]
            if failed:
                for ok, v in outcomes:
                    if ok:
                        _close(v)
                out.set_exception(failed[0])
                return
            values = [v for _, v in outcomes]
            try:
                inner = self.jobs.submit(fn, *values)
            except RuntimeError as exc:  # the pool was shut down after an error elsewhere
                for v in values:
                    _close(v)
                out.set_exception(exc)
                return
            inner.add_done_callback(lambda g: _relay(g, out, lambda v: v))

        for f in futures:
            f.add_done_callback(ready)
        return out


def _relay(src: Future[Any], dst: Future[Any], convert: Callable[[Any], Any]) -> None:
    ok, value = _outcome(src)
    if not ok:
        dst.set_exception(value)
        return
    try:
        dst.set_result(convert(value))
    except BaseException as exc:
        dst.set_exception(exc)

