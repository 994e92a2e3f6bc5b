"""`herald-push-logic-bench`, the benchmarks' measure of Herald's per-push logic alone: the server's own
`PushService.handle` on one thread, every push stored by the server's group commit and accepted. It must
report a figure only for pushes Herald accepted, or the lower bound scripts/bench draws from it would
count refusals."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from herald_support import REPO, herald_bin


def logic_bin() -> str:
    return str(Path(herald_bin()).parent / "herald-push-logic-bench")


def test_the_logic_bench_reports_the_cpu_a_push_takes_for_accepted_pushes_only(tmp_path):
    # Its data directory goes under TMPDIR and is removed on the way out, failed or not.
    temporary = tmp_path / "tmp"
    temporary.mkdir()

    def run(*arguments: str) -> subprocess.CompletedProcess:
        done = subprocess.run([logic_bin(), *arguments], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "TMPDIR": str(temporary)})
        assert list(temporary.iterdir()) == []
        return done

    done = run("--pushes", "300", "--rounds", "3")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert len(figures["rounds"]) == 3 and figures["pushes_per_round"] == 300
    assert figures["payload_bytes"] == 188  # scripts/bench's alert
    assert 0 < figures["min_us_per_push"] <= figures["us_per_push"]
    assert sorted(figures["rounds"])[1] == figures["us_per_push"]  # the median round

    big = run("--pushes", "100", "--rounds", "1", "--payload", str(REPO / "bench" / "payload-4096.json"))
    assert big.returncode == 0, big.stderr
    assert json.loads(big.stdout)["payload_bytes"] == 4096

    # A body APNs refuses is no push to measure: the tool fails rather than timing refusals.
    refused = tmp_path / "refused.json"
    refused.write_text('{"aps": ')
    failed = run("--pushes", "100", "--rounds", "1", "--payload", str(refused))
    assert failed.returncode == 1 and failed.stdout == ""
    assert "the demo push is refused" in failed.stderr
