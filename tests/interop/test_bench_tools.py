"""The benchmark scripts' pure helpers (no server, no h2load): scripts/bench-tools.py's percentile, h2load
summary and CPU accounting, the Targets rows of BENCHMARKS.md; scripts/bench-growth's payload of an exact
size, its SQLite population, its session reader's event counting and its sentences."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

from herald_support import REPO

sys.path.insert(0, str(REPO / "scripts"))
import bench_growth_lib as lib  # noqa: E402
import bench_growth_readers as readers  # noqa: E402
import bench_growth_report as report  # noqa: E402

spec = importlib.util.spec_from_file_location("bench_tools", REPO / "scripts" / "bench-tools.py")
tools = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tools)

UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def test_the_payloads_are_valid_json_of_exactly_the_size_asked():
    for size in (229, 230, 1000, 4096, 5000):
        payload = lib.make_payload(size)
        assert len(payload) == size
        body = json.loads(payload)
        assert body["aps"]["alert"]["title"] == "Order shipped"
    assert lib.make_payload(229).decode() == lib.BENCH_PAYLOAD  # scripts/bench's alert, unchanged
    with pytest.raises(ValueError):
        lib.make_payload(100)


def test_percentile_is_the_nearest_rank():
    values = list(range(1, 101))
    assert tools.percentile(values, 50) == 50
    assert tools.percentile(values, 99) == 99
    assert tools.percentile(values, 100) == 100
    assert tools.percentile([1, 2, 3, 4], 50) == 2
    assert tools.percentile([7], 99) == 7
    assert tools.percentile([], 99) is None


def test_the_h2load_summary_names_what_tls_negotiated():
    text = ("TLS Protocol: TLSv1.3\nCipher: TLS_AES_128_GCM_SHA256\nServer Temp Key: X25519 253 bits\n"
            "Application protocol: h2\nfinished in 933.95ms, 21414.51 req/s, 1.69MB/s\n"
            "requests: 20000 total, 20000 started, 20000 done, 20000 succeeded, 0 failed, 0 errored, 0 timeout\n"
            "status codes: 20000 2xx, 0 3xx, 0 4xx, 0 5xx\n")
    out = tools.parse_h2load_stdout(text)
    assert out["tls"] == {"protocol": "TLSv1.3", "cipher": "TLS_AES_128_GCM_SHA256", "alpn": "h2"}
    assert out["finished_s"] == pytest.approx(0.93395)
    assert "tls" not in tools.parse_h2load_stdout("finished in 1s, 1 req/s, 1B/s\n")


def test_a_thread_role_is_measured_but_not_counted_twice(tmp_path):
    before = {"t": 0.0, "total": 0, "busy": 0, "shell_children": 0,
              "roles": {"server": {"10": 100}, "writer": {"10/task/11": 10}}}
    after = {"t": 1.0, "total": 400, "busy": 300, "shell_children": 50,
             "roles": {"server": {"10": 200}, "writer": {"10/task/11": 40}}}
    (tmp_path / "b").write_text(json.dumps(before))
    (tmp_path / "a").write_text(json.dumps(after))
    (tmp_path / "r").write_text(json.dumps({"ok": 1000}))
    tools.cpu_usage(str(tmp_path / "b"), str(tmp_path / "a"), str(tmp_path / "r"))
    cpu = json.loads((tmp_path / "r").read_text())["cpu"]
    hz = cpu["hz"]
    assert cpu["jiffies"] == {"server": 100, "writer": 30}
    # other = busy − server − h2load; the writer is inside the server already
    assert cpu["other"] == pytest.approx(max(0.0, (300 - 100 - 50) / hz))
    us, seconds = tools.cpu_per_2xx_us({"ok": 1000, "cpu": cpu}, "writer")
    assert seconds == pytest.approx(30 / hz)
    assert us == pytest.approx(30 / hz / 1000 * 1e6)


def _res(rate, ok=1000, p99=3.0, server=None, writer=None, tls=None, not_ok=0):
    res = {"ok": ok, "not_ok": not_ok, "rate_2xx_h2load": rate, "rate_h2load": rate,
           "latency_ms": {"p50": 1.0, "p90": 2.0, "p99": p99, "max": 9.0},
           "h2load": {"req_per_s": rate, **({"tls": tls} if tls else {})}}
    if server is not None:
        res["cpu"] = {"hz": 100, "jiffies": {"server": server, "writer": writer}}
    return res


def test_the_targets_rows_measure_each_target_of_the_issue():
    hz = {"max": _res(40000, ok=100000, server=200, writer=60), "rate": _res(5000, p99=4.0), "half": _res(20000, p99=8.0),
          "tls": _res(30000, tls={"protocol": "TLSv1.3", "cipher": "TLS_AES_128_GCM_SHA256"}), "warmup": None}
    nx = {"max": _res(80000), "tls": _res(100000), "rate": None}
    rows = tools.target_rows(hz, nx, {"rate": 5000, "half_rate": 20000}, durable=40000, nginx_rate=80000, ratio=0.5,
                             t1_met=True, t2_met=True, stored_new=5, total_2xx=5, sse_n=5, durable_ok=True)
    assert len(rows) == 6
    assert "**0.50×**" in rows[0] and "aim 0.5×: met" in rows[0]
    assert "**20.0 µs**" in rows[1] and rows[1].endswith("| **met** |")          # 2 s / 100,000
    assert "**6.0 µs**" in rows[2] and rows[2].endswith("| **met** |")           # 0.6 s / 100,000
    assert "p99 **4.00 ms**" in rows[3]
    assert "(20,000/s)" in rows[4] and "reported" in rows[4]
    assert "**0.30×**" in rows[5] and rows[5].endswith("| **not met** |")        # 30,000 / 100,000 < 0.4


def test_the_floor_section_splits_a_push_into_the_http2_layer_and_heralds_own_work():
    hz = {"max": _res(30000, ok=100000, server=500, writer=120), "tls": _res(25000, ok=100000, server=560)}
    nx = {"max": _res(120000, ok=100000, server=80), "tls": _res(90000, ok=100000, server=100)}
    fl = {"max": _res(96000, ok=100000, server=140), "tls": _res(60000, ok=100000, server=190)}
    text = "\n".join(tools.floor_section(hz, nx, fl))
    assert "| Herald's HTTP/2 layer alone (`herald-h2-floor`) | 14.0 | 19.0 | 96,000 |" in text   # 1.4 s / 100,000
    assert "| Herald, a durable push | 50.0 | 56.0 | 30,000 |" in text
    assert "the HTTP/2 layer is 14.0 µs (1.8× nginx's whole request, 8.0 µs) and Herald's own work 36.0 µs, " \
           "of which the store's writer thread 12.0 µs" in text
    assert "leaves 8.0 µs above the HTTP/2 layer" in text                                        # 22 − 14
    assert "The floor itself reaches 0.80× nginx's rate" in text
    # A floor above the target: the target cannot be met by the push path, and the section says so.
    fl["max"] = _res(50000, ok=100000, server=250)
    assert "below the HTTP/2 layer's own cost" in "\n".join(tools.floor_section(hz, nx, fl))
    assert tools.floor_section(hz, nx, {"max": None, "tls": None})[-1].startswith("Not measured")
    # What the profile section's TLS sentence takes: the floor's µs a request over TLS and its share of nginx's.
    from bench_report_parts import floor_cost
    us, share = floor_cost(fl["tls"], nx["tls"])
    assert abs(us - 19.0) < 1e-9 and share == 60000 / 90000
    assert floor_cost(fl["tls"], None) is None and floor_cost(None, nx["tls"]) is None


def test_a_notifications_copies_get_new_seq_and_time_ordered_ids(tmp_path):
    db = tmp_path / "herald.sqlite"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE notifications (seq INTEGER NOT NULL UNIQUE, id TEXT NOT NULL, device_id TEXT NOT NULL, "
                  "payload TEXT NOT NULL, received_at INTEGER NOT NULL, UNIQUE (device_id, id))")
        c.execute("INSERT INTO notifications VALUES (1, 'a', 'dev', '{\"aps\":{}}', 1795880895404)")
    assert lib.populate_notifications(db, 2500, "dev", batch=1000) == 2500
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT seq, id, device_id, payload, received_at FROM notifications WHERE seq > 1 ORDER BY seq").fetchall()
    assert [r[0] for r in rows] == list(range(2, 2501))
    assert all(UUID7.match(r[1]) for r in rows)
    assert all(int(r[1][:8] + r[1][9:13], 16) == r[4] for r in rows)  # the id's milliseconds are its received_at
    assert [r[4] for r in rows] == sorted(r[4] for r in rows) and rows[-1][4] < 1795880895404  # before the template
    assert {(r[2], r[3]) for r in rows} == {("dev", '{"aps":{}}')}


def test_registered_devices_are_written_as_registration_writes_them(tmp_path):
    db = tmp_path / "herald.sqlite"
    with sqlite3.connect(db) as c:
        c.executescript("""
            CREATE TABLE users (user_id TEXT PRIMARY KEY, name TEXT, token_digest TEXT UNIQUE, created_at INTEGER);
            CREATE TABLE devices (device_id TEXT PRIMARY KEY, user_id TEXT, name TEXT, created_at INTEGER);
            CREATE TABLE device_tokens (token TEXT PRIMARY KEY, device_id TEXT, bundle_id TEXT, created_at INTEGER,
                                        unregistered_at INTEGER);
            CREATE TABLE device_states (device_id TEXT PRIMARY KEY, state TEXT);
            INSERT INTO users VALUES ('u0', 'Demo', 'x', 1);
            INSERT INTO devices VALUES ('d0', 'u0', 'Demo', 1);
            INSERT INTO device_tokens VALUES ('t0', 'd0', 'com.example.demo', 1, NULL);
            INSERT INTO device_states VALUES ('d0', '{"isLocked":false}');
        """)
    known = lib.populate_devices(db, 300, 20, "d0")
    assert len(known) == 20
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM devices").fetchone()[0] == 301
        assert c.execute("SELECT count(DISTINCT token) FROM device_tokens WHERE bundle_id = 'com.example.demo' "
                         "AND unregistered_at IS NULL").fetchone()[0] == 301
        assert c.execute("SELECT count(*) FROM device_states WHERE state = '{\"isLocked\":false}'").fetchone()[0] == 301
        device_id, user_token, token = known[0]
        digest = c.execute("SELECT u.token_digest FROM users u JOIN devices d USING (user_id) JOIN device_tokens t "
                           "USING (device_id) WHERE d.device_id = ? AND t.token = ?", (device_id, token)).fetchone()[0]
    import hashlib
    assert digest == hashlib.sha256(user_token.encode()).hexdigest()  # the session can sign in with it
    assert re.fullmatch(r"[0-9a-f]{64}", token)
    assert len(lib.sample_tokens(db, 50, "d0")) == 50 and "t0" not in lib.sample_tokens(db, 400, "d0")


def test_a_session_counts_distinct_notifications_repeats_and_cursors_going_back():
    s = readers.Session("d", "t")
    event = lambda cursor, nid: (f'id: {cursor}\nevent: notification\ndata: {{"id":"{nid}","cursor":"{cursor}",'  # noqa: E731
                                 f'"payload":{{}}}}\n\n').encode()
    s.block(event(1, "a") + event(2, "b") + b"event: badge\ndata: {}\n\n" + event(3, "a") + event(2, "c"))
    assert (len(s.ids), s.events, s.duplicates, s.out_of_order, s.other, s.bad) == (3, 4, 1, 1, 1, 0)


def _row(label, rate, cpu=20.0, writer=5.0, wbytes=4000.0, p99=30.0, **kw):
    return {"label": label, "rate": rate, "cpu_us": cpu, "writer_us": writer, "writer_bytes": wbytes, "p99": p99,
            "c": 16, "m": 32, **kw}


def test_the_bend_is_the_worst_step_and_its_why_the_figure_that_moved_most():
    rows = [_row("1", 20000), _row("100,000", 19600, wbytes=4100), _row("1,000,000", 15000, cpu=24.0, wbytes=9000)]
    text = report.growth_sentence("devices", rows, report.METRICS)
    assert "1,000,000 75 %" in text
    assert "bends between 100,000 and 1,000,000 (rate −23 %)" in text
    assert "writer bytes per push 4,100 B → 9,000 B (+120 %)" in text
    flat = report.growth_sentence("devices", rows[:2], report.METRICS)
    assert "does not bend" in flat and "−2 %" in flat


def test_concurrency_says_where_the_rate_peaks_and_whether_the_server_caps_the_streams():
    rows = [_row("1", 8000, p99=4.0, m=1, mean_ms=1.6), _row("32", 25000, m=32), _row("1,000", 20000, p99=300.0, m=1000)]
    text = report.concurrency_sentence("streams", rows, max_streams=1000)
    assert "peaks at 32" in text and "at 1 it is 32 % of the peak" in text and "the bend" in text
    # 16 in flight at 1.6 ms carry 10,000/s at most (Little's law); 8,000/s is 80 % of it
    assert "carry at most 10,000/s, and it reached 80 % of that — bound by the requests in flight" in text
    assert "-m 1,000 is within it (not capped)" in text
    assert "capped by it to 100" in report.concurrency_sentence("streams", rows, max_streams=100)


def test_refusing_is_reported_against_an_accepted_push():
    accepted = _row("229 B", 20000, cpu=40.0)
    refused = _row("5,000 B", 30000, cpu=10.0, wbytes=0.0, payload=5000, refused_ok=True, logged=500,
                   statuses={"413": 500})
    text = report.refused_sentence(accepted, refused)
    assert "every one of the 500 answers is 413" in text and "25 % of an accepted 229 B push's 40.0 µs" in text


def _thread(name, write_bytes, ready, done):
    import ctypes
    import os
    import threading

    def body():
        ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME: the thread's comm
        with open(os.devnull, "wb") as f:
            for _ in range(write_bytes // 65536):
                f.write(b"x" * 65536)
                f.flush()
        ready.set()
        done.wait(10)
    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t


def test_the_writer_thread_is_found_by_its_name_else_by_what_it_writes():
    import os
    import threading
    ready, done = threading.Event(), threading.Event()
    t = _thread("-qos.overcommit", 4 * 2**20, ready, done)  # a writer whose name did not take
    try:
        assert ready.wait(10)
        assert tools.writer_thread(os.getpid()) == (t.native_id, "by its writes")
        ready2 = threading.Event()
        named = _thread("herald-writer", 0, ready2, done)
        assert ready2.wait(10)
        assert tools.writer_thread(os.getpid()) == (named.native_id, "named")
    finally:
        done.set()


def _full(factor, label, rate, **kw):
    base = {"factor": factor, "devices": 0, "known": 0, "stored": 0, "sessions": 1, "payload": 229, "reference": False,
            "expect": 200, "accepted": 55001, "stored_new": 55001, "durable_ok": True, "sessions_connected": 1,
            "sessions_received": 55001, "sessions_expected": 55001, "sessions_ok": True, "distinct_devices": 1,
            "rss_mib": 70.0, "reader_cores": 0.1, "other_cores": 0.0, "exit": 0}
    return {**base, **_row(label, rate), **kw}


def test_the_section_has_a_row_per_level_and_a_sentence_per_factor():
    results = {
        "devices": [_full("devices", "1", 20000), _full("devices", "1,000,000", 11000, devices=10**6, wbytes=25000,
                                                         writer_bytes=25000.0, distinct_devices=3125, other_cores=0.7)],
        "sessions": [_full("sessions", "0", 23000, sessions=0), _full("sessions", "1", 22000),
                     _full("sessions", "0, 1,000 devices", 9000, sessions=0, devices=1000, reference=True,
                           writer_bytes=27000.0)],
        "payload": [_full("payload", "229 B", 17000),
                    _full("payload", "5,000 B", 24000, payload=5000, expect=413, logged=50000, statuses={"413": 50000},
                          refused_ok=True, writer_bytes=None, writer_us=None)],
    }
    text = report.section(results, {"command": "scripts/bench-growth --bin x", "pushes": 50000, "warmup": 5000,
                                    "minutes": 9.0, "max_streams": 1000, "date": "2026-11-28 16:20 UTC"})
    assert text.startswith("## How the cost grows (scripts/bench-growth)\n")
    assert "| registered devices | 1 (baseline) | 20,000 |" in text
    assert "| payload size | 5,000 B | 24,000 |" in text and "50,000 × 413 PayloadTooLarge ✓" in text
    assert "the writer's bytes follow how widely the pushes are spread over devices" in text   # 27,000 vs 25,000 B
    assert "Other processes used ≥ 0.5 cores during 1,000,000 (0.70)" in text
    assert "nothing reached the store's writer thread" in text
    assert text.count("\n- **") == 3


def test_the_nginx_configuration_is_accepted_with_and_without_its_tls_listener(tmp_path):
    # bench-nodes and ab-push fill in only @DIR@ and @PORT@; scripts/bench also writes the TLS server.
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    main = (REPO / "bench" / "nginx.conf.template").read_text()
    (tmp_path / "nginx.conf").write_text(main.replace("@DIR@", str(tmp_path)).replace("@PORT@", "1"))

    def check():
        return subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-e",
                               str(tmp_path / "error.log")], capture_output=True, text=True)

    alone = check()
    assert alone.returncode == 0, alone.stderr
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout", str(tmp_path / "key.pem"), "-out",
                    str(tmp_path / "cert.pem")], check=True, capture_output=True)
    tls = (REPO / "bench" / "nginx-tls-server.conf.template").read_text()
    (tmp_path / "tls-server.conf").write_text(tls.replace("@DIR@", str(tmp_path)).replace("@TLS_PORT@", "2"))
    both = check()
    assert both.returncode == 0, both.stderr
    assert "@" not in (tmp_path / "nginx.conf").read_text() + (tmp_path / "tls-server.conf").read_text()
