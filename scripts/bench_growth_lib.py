"""Helpers of scripts/bench-growth (a benchmark, not a test): payloads of an exact size, the server
process and its writer thread's counters in /proc, a `herald serve` process, and the SQLite
population of registered devices and stored notifications (the server stopped). The sentences of
the report are in bench_growth_report.py.
"""

import base64
import hashlib
import importlib.util
import json
import os
import secrets
import signal
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("bench_tools", HERE / "bench-tools.py")
tools = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tools)

# scripts/bench's payload: a realistic alert, 229 bytes.
BENCH_PAYLOAD = ('{"aps":{"alert":{"title":"Order shipped","subtitle":"Order #48213","body":"Your package is on its '
                 'way and should arrive on Tuesday."},"badge":3,"sound":"default","thread-id":"orders",'
                 '"category":"ORDER_UPDATE"},"order_id":"48213"}')
FILLER = "Your package is on its way and should arrive on Tuesday. "


def make_payload(size: int) -> bytes:
    """A valid JSON alert payload of exactly `size` bytes (ASCII): scripts/bench's alert with its body
    lengthened by repeated text. 4,096 is APNs's limit for an alert push; more is refused."""
    base = json.loads(BENCH_PAYLOAD)
    body = base["aps"]["alert"]["body"]
    encoded = json.dumps(base, separators=(",", ":")).encode()
    missing = size - len(encoded)
    if missing < 0:
        raise ValueError(f"{size} bytes is less than the alert itself ({len(encoded)})")
    base["aps"]["alert"]["body"] = body + (FILLER * (missing // len(FILLER) + 1))[:missing]
    out = json.dumps(base, separators=(",", ":")).encode()
    assert len(out) == size, (len(out), size)
    return out


# ---------------------------------------------------------------------------------------------
# /proc counters

def jiffies(path):
    """utime+stime of /proc/PID/stat or /proc/PID/task/TID/stat, or None."""
    try:
        with open(path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) + int(fields[12])


def wchar(pid, tid):
    """Bytes the thread passed to write-like system calls (/proc/PID/task/TID/io wchar), or None."""
    try:
        with open(f"/proc/{pid}/task/{tid}/io") as f:
            for line in f:
                if line.startswith("wchar:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def writer_thread(pid):
    """The server's store writer thread: (tid, how), see bench-tools.py writer_thread."""
    return tools.writer_thread(pid)


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def snapshot(server_pid, writer_tid, reader_pid):
    """CPU counters before/after a run: the machine, the server, its writer thread (and its wchar), the
    session reader, and this process's waited-for children (h2load)."""
    total, idle = tools.cpu_times()
    t = os.times()
    return {
        "t": time.monotonic(), "total": total, "busy": total - idle,
        "server": jiffies(f"/proc/{server_pid}/stat"),
        "writer": jiffies(f"/proc/{server_pid}/task/{writer_tid}/stat") if writer_tid else None,
        "wchar": wchar(server_pid, writer_tid) if writer_tid else None,
        "reader": jiffies(f"/proc/{reader_pid}/stat") if reader_pid else None,
        "children": t.children_user + t.children_system,  # seconds
    }


def usage(before, after, count):
    """Per-run figures from two snapshots: µs of server and writer CPU and writer bytes per counted answer,
    cores of the reader, h2load and everything else."""
    hz = os.sysconf("SC_CLK_TCK")
    wall = after["t"] - before["t"]
    d = lambda key: None if before[key] is None or after[key] is None else after[key] - before[key]  # noqa: E731
    per = lambda v, scale: None if v is None or not count else v * scale / count  # noqa: E731
    server, writer, reader = d("server"), d("writer"), d("reader")
    loadgen = d("children")
    accounted = (server or 0) / hz + (reader or 0) / hz + (loadgen or 0)
    busy = (after["busy"] - before["busy"]) / hz
    return {
        "wall_s": wall,
        "cpu_us": per(server, 1e6 / hz),
        "writer_us": per(writer, 1e6 / hz),
        "writer_bytes": per(d("wchar"), 1),
        "server_cores": None if server is None else server / hz / wall,
        "reader_cores": None if reader is None else reader / hz / wall,
        "loadgen_cores": None if loadgen is None else loadgen / wall,
        "other_cores": max(0.0, (busy - accounted) / wall),
    }


# ---------------------------------------------------------------------------------------------
# the server

class Server:
    """`herald serve` on a data directory, on free 127.0.0.1 ports; stop() is bounded (SIGTERM, then SIGKILL)."""

    def __init__(self, binary, data, log_path):
        self.binary, self.data, self.log_path = binary, Path(data), log_path
        self.proc = None
        self.runtime = {}

    def start(self, timeout=180.0):
        self.data.mkdir(parents=True, exist_ok=True)
        runtime = self.data / "runtime.json"
        runtime.unlink(missing_ok=True)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--data", str(self.data), "--host", "127.0.0.1", "--api-port", "0",
             "--apns-port", "0", "--apns-tls-port", "0", "--log-level", "warning", "--device-rate-limit", "0"],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"herald serve exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                self.runtime = json.loads(runtime.read_text())
                if self.runtime.get("pid") == self.proc.pid:
                    return self
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"no runtime.json after {timeout} s: {self.log_tail()}")

    @property
    def pid(self):
        return self.proc.pid

    def demo(self):
        out = subprocess.run([self.binary, "demo", "--data", str(self.data), "--json"], capture_output=True,
                             text=True, timeout=60, check=True)
        return json.loads(out.stdout)

    def stop(self, timeout=60.0):
        """SIGTERM (the server checkpoints its WAL), then SIGKILL; the exit status, or "killed"."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            return "killed"

    def log_tail(self):
        try:
            return Path(self.log_path).read_text(errors="replace")[-2000:]
        except OSError:
            return ""


# ---------------------------------------------------------------------------------------------
# the store, populated while the server is stopped

def connect(db_path):
    db = sqlite3.connect(db_path, timeout=30, isolation_level=None)
    db.execute("PRAGMA busy_timeout = 30000")
    return db


UUID4_SQL = ("lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' "
             "|| substr('89ab', 1 + abs(random()) % 4, 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))")


def populate_devices(db_path, count, with_tokens, template_device):
    """Registers `count` devices the way the admin API does (a user, a device, the device's token for the
    demo app: the rows of users, devices and device_tokens), one user per device; each device gets the demo
    device's state (unlocked), so a push takes the same path as the baseline's. The first `with_tokens` get a
    known user token (for their live sessions): returns [(device_id, user_token, device_token)] of those."""
    db = connect(db_path)
    try:
        demo = db.execute("SELECT d.device_id, t.bundle_id, s.state FROM devices d JOIN device_tokens t USING (device_id) "
                          "LEFT JOIN device_states s USING (device_id) WHERE d.device_id = ?", (template_device,)).fetchone()
        if demo is None:
            raise RuntimeError(f"no demo device {template_device} in {db_path}")
        _, bundle, state = demo
        now = int(time.time() * 1000)
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA cache_size = -262144")  # 256 MiB
        db.execute("BEGIN")
        db.execute("CREATE TEMP TABLE g (i INTEGER PRIMARY KEY, user_id TEXT, device_id TEXT, token TEXT, digest TEXT)")
        known = []
        for i in range(1, min(count, with_tokens) + 1):
            user_token = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
            row = (i, str(uuid.uuid4()), str(uuid.uuid4()), secrets.token_hex(32),
                   hashlib.sha256(user_token.encode()).hexdigest())
            db.execute("INSERT INTO g VALUES (?, ?, ?, ?, ?)", row)
            known.append((row[2], user_token, row[3]))
        db.execute(f"""
            WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k WHERE i < ?)
            INSERT INTO g SELECT i, {UUID4_SQL}, {UUID4_SQL}, lower(hex(randomblob(32))), lower(hex(randomblob(32))) FROM k
            """, (len(known) + 1, count))
        db.execute("INSERT INTO users (user_id, name, token_digest, created_at) SELECT user_id, 'growth ' || i, digest, ? FROM g",
                   (now,))
        db.execute("INSERT INTO devices (device_id, user_id, name, created_at) SELECT device_id, user_id, 'growth ' || i, ? FROM g",
                   (now,))
        db.execute("INSERT INTO device_tokens (token, device_id, bundle_id, created_at, unregistered_at) "
                   "SELECT token, device_id, ?, ?, NULL FROM g", (bundle, now))
        if state is not None:
            db.execute("INSERT INTO device_states (device_id, state) SELECT device_id, ? FROM g", (state,))
        db.execute("COMMIT")
        return known
    finally:
        db.close()


def sample_tokens(db_path, n, exclude_device):
    """n device tokens of the populated devices, drawn at random (not the demo device's)."""
    db = connect(db_path)
    try:
        return [r[0] for r in db.execute(
            "SELECT token FROM device_tokens WHERE device_id <> ? ORDER BY random() LIMIT ?", (exclude_device, n))]
    finally:
        db.close()


UUID7_SQL = ("lower(substr(printf('%012x', ms), 1, 8) || '-' || substr(printf('%012x', ms), 9, 4) || '-7' || "
             "substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random()) % 4, 1) || "
             "substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))")


def populate_notifications(db_path, total, device_id, batch=1_000_000, progress=None):
    """Fills `notifications` up to `total` rows with copies of the device's latest row (a push stored by the
    server): each copy with the next seq and a new time-ordered (version 7) id, received 1 ms after the one
    before it by seq, all before the template row (seq s at `span` − s ms before it, so that a later call
    continues the same order). Without a rollback journal (a throwaway database; WAL again at the end)."""
    db = connect(db_path)
    try:
        have = db.execute("SELECT count(*) FROM notifications").fetchone()[0]
        if have >= total:
            return have
        cols = [r[1] for r in db.execute("PRAGMA table_info(notifications)")]
        template = db.execute("SELECT seq, received_at FROM notifications WHERE device_id = ? ORDER BY seq DESC LIMIT 1",
                              (device_id,)).fetchone()
        if template is None:
            raise RuntimeError("no notification of the device to copy")
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA cache_size = -262144")  # 256 MiB
        seq0 = db.execute("SELECT max(seq) FROM notifications").fetchone()[0]
        todo = total - have
        span = max(20_000_000, 2 * total)  # ms: seq s is received span − s ms before the template
        t0 = template[1] - span + seq0  # + k.i: the row's time
        generated = {"seq": ":seq0 + k.i", "id": UUID7_SQL.replace("ms", "(:t0 + k.i)"), "received_at": ":t0 + k.i"}
        select = ", ".join(generated.get(c, f"t.{c}") for c in cols)
        done = 0
        while done < todo:
            n = min(batch, todo - done)
            db.execute("BEGIN")
            db.execute(f"""
                WITH RECURSIVE k(i) AS (SELECT :first UNION ALL SELECT i + 1 FROM k WHERE i < :last)
                INSERT INTO notifications ({", ".join(cols)})
                SELECT {select} FROM k, (SELECT * FROM notifications WHERE seq = :template) AS t
                """, {"first": done + 1, "last": done + n, "seq0": seq0, "t0": t0, "template": template[0]})
            db.execute("COMMIT")
            done += n
            if progress:
                progress(have + done)
        db.execute("PRAGMA journal_mode = WAL")
        return have + done
    finally:
        db.close()


def max_seq(db_path):
    db = connect(db_path)
    try:
        return db.execute("SELECT coalesce(max(seq), 0) FROM notifications").fetchone()[0]
    finally:
        db.close()


def counts_after(db_path, seq, devices=None):
    """Rows stored after seq: the total, and per device for `devices` ({device_id: rows})."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        total = db.execute("SELECT count(*) FROM notifications WHERE seq > ?", (seq,)).fetchone()[0]
        per = {}
        if devices:
            db.execute("CREATE TEMP TABLE w (device_id TEXT PRIMARY KEY)")
            db.executemany("INSERT INTO w VALUES (?)", [(d,) for d in devices])
            per = dict(db.execute("SELECT device_id, count(*) FROM notifications WHERE seq > ? AND device_id IN "
                                  "(SELECT device_id FROM w) GROUP BY device_id", (seq,)))
        return total, {d: per.get(d, 0) for d in (devices or [])}
    finally:
        db.close()


def db_bytes(data):
    """herald.sqlite with its -wal and -shm."""
    return sum(os.path.getsize(p) for p in (data / "herald.sqlite", data / "herald.sqlite-wal", data / "herald.sqlite-shm")
               if p.exists())
