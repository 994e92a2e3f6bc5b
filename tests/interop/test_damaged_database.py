"""A damaged database: pages of `herald.sqlite` overwritten with random bytes. Before a start, Herald
refuses to start (exit 1) and says what to do next; met while serving, it answers 5xx — never a 200
for a write it cannot keep — logs the damage once, and keeps running."""

from __future__ import annotations

import os
import random
import subprocess
import time
from pathlib import Path

import pytest

from conftest import HeraldEnv
from herald_support import database_engine, REPORT, H2Client, HeraldServer, herald_bin, new_apns_id

# The SQLite file in the data directory is what these tests damage or starve; on PostgreSQL the
# database is the server's, and its failures are tested by test_postgres_nodes.py.
pytestmark = pytest.mark.skipif(database_engine() == "postgres", reason="the SQLite data file only")


PAYLOAD = {"aps": {"alert": {"title": "damage", "body": "y" * 800}}}


def page_size(db: Path) -> int:
    with open(db, "rb") as f:
        header = f.read(100)
    assert header.startswith(b"SQLite format 3\0"), header[:16]
    size = int.from_bytes(header[16:18], "big")
    return 65536 if size == 1 else size


def overwrite_pages(db: Path, seed: int) -> int:
    """Overwrites every page but the first (the header and the schema) with random bytes; returns the
    number of pages overwritten. pwrite on the open file, as a failing disk or a stray process would."""
    size = page_size(db)
    pages = db.stat().st_size // size
    assert pages > 10, f"only {pages} pages: nothing to damage"
    rng = random.Random(seed)
    fd = os.open(db, os.O_WRONLY)
    try:
        for page in range(1, pages):
            os.pwrite(fd, rng.randbytes(size), page * size)
        os.fsync(fd)
    finally:
        os.close(fd)
    return pages - 1


def start_with_data(tmp_path: Path, name: str) -> HeraldEnv:
    server = HeraldServer(tmp_path / name)
    server.start()
    return HeraldEnv(server, server.demo())


def fill(env: HeraldEnv, devices, per_device: int) -> None:
    with H2Client(env.apns_url) as h2:
        for d in devices:
            answers = h2.push_many([(d.device_token, env.headers(), PAYLOAD) for _ in range(per_device)])
            assert {st.status for st in answers} == {200}


def serve_expecting_exit(data: Path, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([herald_bin(), "serve", "--data", str(data), "--host", "127.0.0.1", "--api-port", "0",
                           "--apns-port", "0", "--apns-tls-port", "0"], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def assert_says_what_to_do(output: str, db: Path) -> None:
    assert "database disk image is malformed" in output, output[-2000:]
    assert "PRAGMA integrity_check" in output and str(db) in output, output[-2000:]
    assert "backup" in output and f"{db}-wal" in output, output[-2000:]


def test_a_database_damaged_before_the_start_stops_herald_with_exit_1_and_what_to_do(tmp_path):
    # Given a data directory with notifications, stopped cleanly (everything in the database file)
    env = start_with_data(tmp_path, "data")
    fill(env, [env.new_device() for _ in range(2)], 100)
    assert env.server.stop() == 0
    db = env.server.data_dir / "herald.sqlite"
    # When its pages are overwritten
    overwrite_pages(db, seed=16)
    # Then `herald serve` exits 1, with SQLite's words and what to do next, and writes no runtime.json
    started = time.monotonic()
    out = serve_expecting_exit(env.server.data_dir)
    assert out.returncode == 1, (out.returncode, out.stderr[-2000:])
    assert_says_what_to_do(out.stderr, db)
    assert not (env.server.data_dir / "runtime.json").exists()
    REPORT.append(f"damaged before the start: exit {out.returncode} after {time.monotonic() - started:.2f} s: "
                  + next(line for line in out.stderr.splitlines() if "malformed" in line)[:160] + "…")


def test_damage_met_while_serving_gives_5xx_never_200_and_is_logged_once(tmp_path):
    env = start_with_data(tmp_path, "data")
    try:
        devices = [env.new_device() for _ in range(3)]
        fill(env, devices, 150)
        db = env.server.data_dir / "herald.sqlite"
        # The log is copied into the file in the background (a passive checkpoint every 0.25 s): once
        # it all is, reads come from the file itself
        time.sleep(1.5)
        pages = overwrite_pages(db, seed=61)

        # When requests meet the damage: lists, a decision, pushes, API writes
        answers: list[tuple[str, int, str | None]] = []
        with H2Client(env.apns_url) as h2:
            for round_no in range(5):
                for d in devices:
                    r = env.api("GET", f"/v1/devices/{d.device_id}/notifications", token=d.user_token)
                    answers.append(("list", r.status, r.json()["error"]["code"] if r.status >= 400 else None))
                    st = h2.push(d.device_token, env.headers(apns_id=new_apns_id()), PAYLOAD)
                    answers.append(("push", st.status, st.reason))
                    r = env.api("PUT", "/v1/me/preferences", body={"locale": ["fr", "de"][round_no % 2]},
                                token=d.user_token)
                    answers.append(("write", r.status, r.json()["error"]["code"] if r.status >= 400 else None))
        # Then once the damage was met, no request is answered 200: lists and API writes get
        # 500 storage_damaged, pushes APNs's 500 InternalServerError
        first = next((i for i, a in enumerate(answers) if a[1] >= 500), None)
        assert first is not None, f"the damage ({pages} pages) was never met: {answers[:6]}"
        assert first <= 3, f"the damage was met only at request {first}: {answers[:first + 1]}"
        after = answers[first:]
        assert all(status >= 500 for _, status, _ in after), [a for a in after if a[1] < 500]
        assert {a for a in after if a[0] == "push"} <= {("push", 500, "InternalServerError")}, after
        assert {a[2] for a in after if a[0] != "push"} <= {"storage_damaged"}, after
        # and the server keeps running
        assert env.api("GET", "/healthz").status == 200
        assert env.server.proc.poll() is None
        # and the damage is logged once, with what to do next, not once per request
        log = env.server.log_path.read_text(errors="replace")
        damage_lines = [line for line in log.splitlines() if "storage.fault=damaged" in line and " critical " in line]
        assert len(damage_lines) == 1, damage_lines
        assert_says_what_to_do(damage_lines[0], db)
        REPORT.append(f"damaged while serving ({pages} pages overwritten): {len(after)} requests after the damage "
                      f"was met, all 5xx; logged {len(damage_lines)} time")
    finally:
        env.server.kill9()
