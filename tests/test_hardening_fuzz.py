"""Hostile input, hypothesis-driven, against the real proxy (issue 16): valid, nearly valid and
garbage JSON-RPC in both eras, odd headers and encodings, huge and deep bodies, unicode edge cases,
wrong argument types for every tool, long paths.

Whatever arrives: never a 5xx, never an internal detail in the answer, never an ERROR in the log,
and `/health` still answers. `make test` runs a short pass; `make fuzz` runs 100,000 requests
(`BESLUITBRON_FUZZ_EXAMPLES`) and writes the tally to `BESLUITBRON_FUZZ_REPORT` if set.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile import ROOT, FuzzServer, Request, fuzz_server, hostile_request, renew_session, send

EXAMPLES = int(os.environ.get("BESLUITBRON_FUZZ_EXAMPLES", "300"))
# The long run is split into rounds of at most this many examples, each a fresh hypothesis run against the
# same server: hypothesis remembers every choice of a run (to avoid repeats and to shrink), so a round
# keeps that record, and its memory, to 250 examples however long the run.
ROUND = 250
ROUNDS = max(1, -(-EXAMPLES // ROUND))
# Requests per hypothesis example: the long run sends several per example, so hypothesis's own work
# per example (choosing, recording, checking /health) does not dominate 100,000 requests.
BATCH = int(os.environ.get("BESLUITBRON_FUZZ_BATCH", "1"))
REPORT = os.environ.get("BESLUITBRON_FUZZ_REPORT")
# What must never reach a client: a traceback, a source path, this checkout's location.
LEAKS = re.compile(rb"Traceback \(most recent|File \"/|\.py\", line|" + re.escape(str(ROOT).encode()))


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FuzzServer]:
    with fuzz_server(tmp_path_factory.mktemp("fuzz")) as server:
        yield server


def _write_report(server: FuzzServer) -> None:
    """The tally so far (rewritten after every example, so an interrupted long run still says what it did)."""
    if REPORT:
        Path(REPORT).write_text(json.dumps({
            "requests": sum(server.statuses.values()),
            "seconds": round(time.perf_counter() - STARTED, 1),
            "statuses": {str(k): v for k, v in sorted(server.statuses.items())},
            "server_errors_5xx": sum(v for k, v in server.statuses.items() if k >= 500),
            "errors_logged": len(server.errors.records),
        }, indent=2), encoding="utf-8")


STARTED = time.perf_counter()


@pytest.mark.parametrize("round_", range(ROUNDS))
@settings(max_examples=min(EXAMPLES, ROUND), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(data=st.data())
def test_hostile_requests_get_a_clean_answer(target: FuzzServer, round_: int, data: st.DataObject) -> None:
    for _ in range(BATCH):
        request: Request = data.draw(hostile_request(target))
        logged_before = len(target.errors.records)
        status, body = send(target, request)
        target.statuses[status] += 1
        if request.method == "DELETE" and status == 200:
            renew_session(target, request)  # the fuzzer ended its own session: later requests need a live one
        assert status < 500, (status, body[:300])
        assert not LEAKS.search(body), body[:500]
        new_errors = target.errors.records[logged_before:]
        assert not new_errors, [r.getMessage() for r in new_errors]
    health, _ = send(target, Request("GET", "/health", (("Host", f"127.0.0.1:{target.port}"),), b""))
    assert health == 200
    _write_report(target)
