#!/usr/bin/env python3
"""Helpers for scripts/bench (a benchmark, not a test). Standard library plus `cryptography`.

  bench-tools.py freeport                         a free TCP port on 127.0.0.1
  bench-tools.py wait-port PORT SECONDS           wait until 127.0.0.1:PORT accepts connections
  bench-tools.py meta-set FILE KEY VALUE [KIND]   set one key of a JSON file (KIND str|int|float|json|note)
  bench-tools.py settle MAX_SECONDS MAX_BUSY      wait for a quiet 3-s window (CPU busy fraction <= MAX_BUSY)
  bench-tools.py cpu-snap FILE SHELL_PID ROLE=PID[,PID...]...   CPU jiffies snapshot (machine, roles)
  bench-tools.py cpu-usage BEFORE AFTER RESULT_JSON               cores used per role during a run
  bench-tools.py writer-tid PID                   the store writer thread's id and how it was found, or nothing
  bench-tools.py json-get FILE KEY                one top-level value of a JSON file
  bench-tools.py jwt KEY_PATH KEY_ID TEAM_ID      an ES256 APNs provider token (raw R||S signature)
  bench-tools.py sse API_URL DEVICE_ID TOKEN STATE_FILE MAX_SECONDS
                                                  a live SSE session that counts `event: notification`
  bench-tools.py h2load-stats LOG STDOUT OUT_JSON per-request statistics from h2load's --log-file
  bench-tools.py report RESULTS_DIR OUT_MD        writes BENCHMARKS.md from the results of one run
"""

import base64
import calendar
import datetime as dt
import itertools
import json
import math
import operator
import os
import re
import signal
import socket
import sys
import time
import urllib.parse

from bench_profile import profile_section  # scripts/ is the script's own directory: on sys.path


# ---------------------------------------------------------------------------------------------
# small utilities


def freeport():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])


def wait_port(port, seconds):
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", int(port)), timeout=0.5):
                return 0
        except OSError:
            time.sleep(0.1)
    print(f"port {port} did not open within {seconds} s", file=sys.stderr)
    return 1


def meta_set(path, key, value, kind="str"):
    """Sets one key of a JSON object file (creating it); kind: str, int, float, json, note (append to "notes")."""
    data = load(path) or {}
    if kind == "note":
        data.setdefault("notes", []).append(value)
    else:
        data[key] = {"str": str, "int": int, "float": float, "json": json.loads}[kind](value)
    with open(path, "w") as f:
        json.dump(data, f, indent=2)


def cpu_times():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields[:8]), idle


def settle(max_seconds, max_busy, window=3.0):
    """Waits (at most max_seconds) for a window in which the CPUs are at most max_busy busy (0..1).
    Prints `<waited seconds> <busy fraction of the last window>`."""
    start = time.monotonic()
    while True:
        t0, i0 = cpu_times()
        time.sleep(window)
        t1, i1 = cpu_times()
        busy = 1.0 - (i1 - i0) / max(1, t1 - t0)
        waited = time.monotonic() - start
        if busy <= float(max_busy) or waited >= float(max_seconds):
            print(f"{waited:.0f} {busy:.2f}")
            return 0


def proc_jiffies(pid, children=False):
    """utime+stime of a process (all its threads), or cutime+cstime (its waited-for children)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # fields[0] is the state (field 3); utime, stime, cutime, cstime are fields 14..17
    if children:
        return int(fields[13]) + int(fields[14])
    return int(fields[11]) + int(fields[12])


def cpu_snap(path, shell_pid, *roles):
    """Writes a CPU snapshot: machine busy/total jiffies, the shell's waited-for children, and
    per role (ROLE=PID[,PID...]) the jiffies of those processes; a PID may be PID/task/TID, one
    thread (e.g. the store's writer), which cpu-usage does not add to the processes' total again."""
    total, idle = cpu_times()
    snap = {
        "t": time.monotonic(),
        "total": total,
        "busy": total - idle,
        "shell_children": proc_jiffies(shell_pid, children=True),
        "roles": {},
    }
    for spec in roles:
        role, _, pids = spec.partition("=")
        values = [proc_jiffies(p) for p in pids.split(",") if p]
        snap["roles"][role] = {p: v for p, v in zip([p for p in pids.split(",") if p], values) if v is not None}
    with open(path, "w") as f:
        json.dump(snap, f)


def cpu_usage(before_path, after_path, result_path):
    """Adds "cpu" (average cores used per role during the run) to an h2load-stats result."""
    hz = os.sysconf("SC_CLK_TCK")
    ncpu = os.cpu_count() or 1
    b, a = load(before_path), load(after_path)
    res = load(result_path)
    if not (a and b and res):
        return
    wall = a["t"] - b["t"]
    if wall <= 0:
        return
    cores = lambda jiffies: jiffies / hz / wall  # noqa: E731
    cpu = {"wall_s": round(wall, 2), "cpus": ncpu}
    accounted = 0
    cpu["hz"] = hz
    cpu["jiffies"] = {}
    for role, pids in a["roles"].items():
        before = b["roles"].get(role, {})
        j = sum(v - before.get(p, 0) for p, v in pids.items() if p in before)
        cpu[role] = cores(j)
        cpu["jiffies"][role] = j
        # A thread (PID/task/TID) is part of a process role already: not counted twice.
        if not any("/task/" in p for p in pids):
            accounted += j
    if a.get("shell_children") is not None and b.get("shell_children") is not None:
        j = a["shell_children"] - b["shell_children"]
        cpu["loadgen"] = cores(j)
        accounted += j
    # /proc/stat counts jiffies per CPU: busy cores = busy jiffies / hz / wall (same tick rate).
    cpu["busy"] = cores(a["busy"] - b["busy"])
    cpu["other"] = max(0.0, cpu["busy"] - cores(accounted))
    res["cpu"] = cpu
    with open(result_path, "w") as f:
        json.dump(res, f, indent=2)


def thread_io(pid, tid):
    """A thread's /proc/PID/task/TID/io counters (rchar, wchar, ...), or {}."""
    try:
        with open(f"/proc/{pid}/task/{tid}/io") as f:
            return {k: int(v) for k, _, v in (line.partition(":") for line in f) if v.strip()}
    except OSError:
        return {}


def writer_thread(pid, name="herald-writer"):
    """The store writer thread of a Herald server: (tid, "named") for the thread named `name`; else (Foundation on
    Linux names a thread from inside it, which can lose a race with the thread's start, and then it keeps its
    creator's name) (tid, "by its writes"): the thread that wrote the most (wchar, at least 1 MiB) while reading
    under a tenth of that, outside SwiftNIO's event loops (sockets) — the WAL checkpointer reads as much as it
    writes. (None, None) when neither is found."""
    try:
        tids = sorted(os.listdir(f"/proc/{pid}/task"), key=int)
    except OSError:
        return None, None
    comms = {}
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                comms[tid] = f.read().strip()
        except OSError:
            continue
    for tid, comm in comms.items():
        if comm == name:
            return int(tid), "named"
    best = None
    for tid, comm in comms.items():
        io = thread_io(pid, tid)
        wchar, rchar = io.get("wchar", 0), io.get("rchar", 0)
        if comm.startswith("NIO-") or wchar < 2**20 or rchar * 10 > wchar:
            continue
        if best is None or wchar > best[1]:
            best = (int(tid), wchar)
    return (best[0], "by its writes") if best else (None, None)


def json_get(path, key):
    with open(path) as f:
        value = json.load(f)[key]
    print(value if not isinstance(value, (dict, list)) else json.dumps(value))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def jwt(key_path, key_id, team_id):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    header = b64url(json.dumps({"alg": "ES256", "kid": key_id}, separators=(",", ":")).encode())
    claims = b64url(json.dumps({"iss": team_id, "iat": int(time.time())}, separators=(",", ":")).encode())
    signing_input = f"{header}.{claims}".encode("ascii")
    r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    print(f"{header}.{claims}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}")


# ---------------------------------------------------------------------------------------------
# the live session


class SSEState:
    def __init__(self, path):
        self.path = path
        self.status = None
        self.connected = False
        self.closed = False
        self.error = None
        self.notifications = 0      # `event: notification` lines
        self.removed = 0            # `event: removed` lines
        self.other_events = 0
        self.cursors = set()        # distinct `id:` values (stream cursors) of notification events
        self.ids = set()            # distinct notification ids (the `id` of the data JSON)
        self.bad_data = 0           # data lines that were not JSON
        self.out_of_order = 0       # a cursor not larger than the previous one
        self.duplicates = 0         # a notification id received before
        self.first_time = 0         # events whose cursor was new
        self.regressions = []       # the first cursor regressions (previous -> next)
        self.trace = []             # (arrival unix s, stream cursor, the row's cursor, 1 if a repeat) per event
        self.last_cursor = None
        self.first_event_at = None
        self.last_event_at = None
        self.lag_samples = []       # (arrival unix s, arrival - received_at in ms), 1 in LAG_EVERY
        self.connected_at = None

    def write(self, final=False):
        data = {
            "status": self.status,
            "connected": self.connected,
            "closed": self.closed,
            "error": self.error,
            "notifications": self.notifications,
            "removed": self.removed,
            "other_events": self.other_events,
            "distinct_cursors": len(self.cursors),
            "distinct_ids": len(self.ids),
            "bad_data": self.bad_data,
            "out_of_order": self.out_of_order,
            "duplicates": self.duplicates,
            "regressions": self.regressions,
            "last_cursor": self.last_cursor,
            "connected_at": self.connected_at,
            "first_event_at": self.first_event_at,
            "last_event_at": self.last_event_at,
            "final": final,
        }
        if final:
            data["lag_samples"] = self.lag_samples
            with open(self.path + ".trace", "w") as f:
                f.writelines(f"{t:.6f} {c} {rc} {rep}\n" for t, c, rc, rep in self.trace)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, self.path)


LAG_EVERY = 10
RECEIVED_AT = re.compile(rb'"received_at"\s*:\s*"([0-9T:.\-]+)Z?"')


def parse_iso_ms(text):
    """`2026-11-22T04:03:48.459Z` (bytes) as UNIX seconds; by slicing (strptime cost 38 us a call,
    and the live reader calls this for every tenth event)."""
    t = text.decode("ascii").rstrip("Z")
    if len(t) < 19 or t[4] != "-" or t[10] != "T":
        raise ValueError(f"not an ISO 8601 UTC time: {t!r}")
    seconds = calendar.timegm((int(t[0:4]), int(t[5:7]), int(t[8:10]), int(t[11:13]), int(t[14:16]), int(t[17:19])))
    fraction = t[19:]
    return seconds + (float(fraction) if fraction else 0.0)


class ChunkedDecoder:
    """Transfer-Encoding: chunked, incrementally (the buffer is cut once per feed, not per chunk)."""

    def __init__(self):
        self.buf = b""
        self.remaining = 0
        self.ended = False

    def feed(self, data):
        buf = self.buf + data if self.buf else data
        pos, n = 0, len(buf)
        out = []
        while not self.ended and pos < n:
            if self.remaining == 0:
                i = buf.find(b"\r\n", pos)
                if i < 0:
                    break
                line = buf[pos:i]
                pos = i + 2
                if not line:
                    continue  # the CRLF after a chunk's data
                size = int(line.split(b";")[0].strip(), 16)
                if size == 0:
                    self.ended = True
                    break
                self.remaining = size
            else:
                take = min(self.remaining, n - pos)
                out.append(buf[pos:pos + take])
                pos += take
                self.remaining -= take
        self.buf = buf[pos:]
        return b"".join(out)


# A whole notification event as the server writes it: stream cursor, data line, notification id, row cursor
# (NotificationJSON writes the id and the cursor first).
NOTIFICATION_EVENT = re.compile(
    rb'^id: (\d+)\nevent: notification\ndata: (\{"id":"([^"\\]*)","cursor":"(\d+)"[^\n]*)$', re.M
)
# In a block of new, in-order notification events (fast_block), the events are read by NOTIFICATION_EVENT and
# every FULL_PARSE_EVERY-th is parsed as JSON whole and its id compared (bad_data counts the failures), so the
# reader, which shares the 2 CPUs with the server under test, costs a few microseconds per event instead of a
# full parse of ~1.3 KB. Any other block is read event by event, each event parsed whole.
FULL_PARSE_EVERY = 50


def sse(api_url, device_id, token, state_path, max_seconds):
    state = SSEState(state_path)
    stop = {"flag": False}

    def on_signal(signum, frame):
        stop["flag"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    deadline = time.monotonic() + float(max_seconds)

    url = urllib.parse.urlsplit(api_url)
    host, port = url.hostname, url.port or 80
    base = url.path.rstrip("/")
    path = f"{base}/v1/devices/{urllib.parse.quote(device_id)}/stream"
    try:
        sock = socket.create_connection((host, port), timeout=10)
        sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
                "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed before the response headers")
            head += chunk
            if len(head) > 65536:
                raise ConnectionError("response headers too large")
        head, rest = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        state.status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if state.status != 200:
            body = rest.decode("utf-8", "replace")[:500]
            raise ConnectionError(f"HTTP {state.status}: {body}")
        state.connected = True
        state.connected_at = time.time()
        state.write()
    except Exception as exc:  # noqa: BLE001 -- reported through the state file
        state.error = f"{type(exc).__name__}: {exc}"
        state.closed = True
        state.write(final=True)
        return 1

    chunked = "chunked" in headers.get("transfer-encoding", "").lower()
    decoder = ChunkedDecoder() if chunked else None
    pending = b""
    previous_cursor = None
    sock.settimeout(0.25)
    last_write = 0.0

    def notification(event_id, data_line, now):
        # The event-by-event path (blocks fast_block leaves): every event is parsed as JSON whole.
        nonlocal previous_cursor
        state.notifications += 1
        state.first_event_at = state.first_event_at or now
        state.last_event_at = now
        try:
            body = json.loads(data_line) if data_line is not None else {}
        except ValueError:
            body = {}
            state.bad_data += 1
        nid = body.get("id")
        nid = nid.encode() if isinstance(nid, str) else None
        row_cursor = body.get("cursor")
        try:
            row_cursor = int(row_cursor)
        except (TypeError, ValueError):
            pass
        received_at = body.get("received_at")
        first_time = nid is None or nid not in state.ids
        if nid is not None:
            if first_time:
                state.ids.add(nid)
            else:
                state.duplicates += 1
        c = None
        if event_id is not None:
            state.cursors.add(event_id)
            state.last_cursor = event_id.decode("ascii", "replace")
            try:
                c = int(event_id)
            except ValueError:
                pass
        if c is not None:
            if previous_cursor is not None and c <= previous_cursor:
                state.out_of_order += 1
                if len(state.regressions) < 20:
                    state.regressions.append(
                        {"at_event": state.notifications, "previous": previous_cursor, "next": c,
                         "row_cursor": row_cursor, "repeat": not first_time,
                         "t": round(now - state.connected_at, 3)}
                    )
            previous_cursor = c
        state.trace.append((now, c, row_cursor, 0 if first_time else 1))
        if first_time:
            state.first_time += 1
            if state.first_time % LAG_EVERY == 0:
                if received_at is None and data_line is not None:
                    found = RECEIVED_AT.search(data_line)
                    received_at = found.group(1).decode("ascii") if found else None
                if received_at:
                    try:
                        state.lag_samples.append((now, (now - parse_iso_ms(received_at.encode())) * 1000.0))
                    except ValueError:
                        pass

    def fast_block(block, now):
        # A block of notification events only, all new and in order (the usual case): counted with
        # C-level set and list operations instead of event by event. Anything else: False, and the
        # event-by-event path handles the block (nothing here changed the state yet).
        nonlocal previous_cursor
        found = NOTIFICATION_EVENT.findall(block)
        n = len(found)
        if n == 0 or block.count(b"event: ") != n:
            return False
        ids = [f[2] for f in found]
        cursors = list(map(int, (f[0] for f in found)))
        if previous_cursor is not None and cursors[0] <= previous_cursor:
            return False
        if not all(map(operator.lt, cursors, cursors[1:])):
            return False
        if len(set(ids)) != n or not state.ids.isdisjoint(ids):
            return False
        before_notifications, before_first = state.notifications, state.first_time
        state.notifications += n
        state.first_time += n
        state.first_event_at = state.first_event_at or now
        state.last_event_at = now
        state.ids.update(ids)
        state.cursors.update(f[0] for f in found)
        state.last_cursor = found[-1][0].decode("ascii")
        previous_cursor = cursors[-1]
        state.trace.extend(zip(itertools.repeat(now), cursors, map(int, (f[3] for f in found)), itertools.repeat(0)))
        for i in range(FULL_PARSE_EVERY - 1 - before_notifications % FULL_PARSE_EVERY, n, FULL_PARSE_EVERY):
            try:
                if json.loads(found[i][1]).get("id", "").encode() != found[i][2]:
                    state.bad_data += 1
            except (ValueError, AttributeError):
                state.bad_data += 1
        for i in range(LAG_EVERY - 1 - before_first % LAG_EVERY, n, LAG_EVERY):
            received = RECEIVED_AT.search(found[i][1])
            if received:
                try:
                    state.lag_samples.append((now, (now - parse_iso_ms(received.group(1))) * 1000.0))
                except ValueError:
                    pass
        return True

    def handle(data):
        # Whole events only: everything up to the last blank line; the rest waits for more data.
        nonlocal pending
        pending = pending + data if pending else data
        if b"\r" in pending:
            pending = pending.replace(b"\r\n", b"\n")
        end = pending.rfind(b"\n\n")
        if end < 0:
            return
        block, pending = pending[:end], pending[end + 2:]
        now = time.time()
        if fast_block(block, now):
            return
        for event in block.split(b"\n\n"):
            event_type = event_id = data_line = None
            for line in event.split(b"\n"):
                if not line or line.startswith(b":"):
                    continue  # comment / keep-alive
                field, _, value = line.partition(b":")
                if value.startswith(b" "):
                    value = value[1:]
                if field == b"event":
                    event_type = value
                elif field == b"id":
                    event_id = value
                elif field == b"data":
                    data_line = value if data_line is None else data_line + b"\n" + value
            if event_type == b"notification":
                notification(event_id, data_line, now)
            elif event_type == b"removed":
                state.removed += 1
            elif event_type is not None:
                state.other_events += 1

    def feed(raw):
        handle(decoder.feed(raw) if decoder else raw)

    if rest:
        feed(rest)
    while not stop["flag"] and time.monotonic() < deadline:
        try:
            raw = sock.recv(1 << 20)
        except socket.timeout:
            raw = None
        except OSError as exc:
            state.error = f"{type(exc).__name__}: {exc}"
            state.closed = True
            break
        if raw == b"":
            state.closed = True
            break
        if raw:
            feed(raw)
            if decoder and decoder.ended:
                state.closed = True
                break
        now = time.monotonic()
        if now - last_write >= 0.2:
            state.write()
            last_write = now
    try:
        sock.close()
    except OSError:
        pass
    state.write(final=True)
    return 0


# ---------------------------------------------------------------------------------------------
# h2load results


def percentile(sorted_values, p):
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def parse_h2load_stdout(text):
    out = {}
    m = re.search(r"finished in ([0-9.]+)(ms|s|us), ([0-9.]+) req/s", text)
    if m:
        value = float(m.group(1))
        out["finished_s"] = value / {"s": 1, "ms": 1e3, "us": 1e6}[m.group(2)]
        out["req_per_s"] = float(m.group(3))
    m = re.search(
        r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout",
        text,
    )
    if m:
        keys = ["total", "started", "done", "succeeded", "failed", "errored", "timeout"]
        out["requests"] = dict(zip(keys, map(int, m.groups())))
    m = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
    if m:
        out["status_classes"] = dict(zip(["2xx", "3xx", "4xx", "5xx"], map(int, m.groups())))
    # over TLS: what was negotiated
    tls = {key: m.group(1).strip() for key, pattern in (("protocol", r"TLS Protocol: (.+)"), ("cipher", r"Cipher: (.+)"),
                                                         ("alpn", r"Application protocol: (.+)"))
           for m in [re.search(pattern, text)] if m}
    if tls:
        out["tls"] = tls
    return out


def h2load_stats(log_path, stdout_path, out_path):
    durations = []
    durations_2xx = []
    ends = []
    statuses = {}
    first_start = None
    last_end = None
    if os.path.exists(log_path):
        with open(log_path) as f:
            for line in f:
                cols = line.split("\t")
                if len(cols) < 3:
                    continue
                try:
                    start_us, status, dur_us = int(cols[0]), int(cols[1]), int(cols[2])
                except ValueError:
                    continue
                statuses[status] = statuses.get(status, 0) + 1
                ms = dur_us / 1000.0
                durations.append(ms)
                if 200 <= status < 300:
                    durations_2xx.append(ms)
                first_start = start_us if first_start is None else min(first_start, start_us)
                end = start_us + dur_us
                ends.append(end)
                last_end = end if last_end is None else max(last_end, end)
    durations.sort()
    durations_2xx.sort()
    ends.sort()
    gap_ms, gap_at_s = 0.0, None
    for i in range(1, len(ends)):
        g = (ends[i] - ends[i - 1]) / 1000.0
        if g > gap_ms:
            gap_ms, gap_at_s = g, (ends[i - 1] - first_start) / 1e6
    with open(stdout_path) as f:
        summary = parse_h2load_stdout(f.read())
    span_s = (last_end - first_start) / 1e6 if durations else None
    result = {
        "logged": len(durations),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "ok": len(durations_2xx),
        "not_ok": len(durations) - len(durations_2xx),
        "span_s": span_s,
        "rate_logged": (len(durations) / span_s) if span_s else None,
        "rate_2xx": (len(durations_2xx) / span_s) if span_s else None,
        "latency_ms": {
            name: percentile(durations, p) for name, p in (("p50", 50), ("p90", 90), ("p99", 99), ("max", 100))
        },
        "latency_2xx_ms": {
            name: percentile(durations_2xx, p)
            for name, p in (("p50", 50), ("p90", 90), ("p99", 99), ("max", 100))
        },
        "mean_ms": (sum(durations) / len(durations)) if durations else None,
        # the longest time in which no response completed, and when it began (s after the first request)
        "longest_gap_ms": gap_ms,
        "longest_gap_at_s": gap_at_s,
        # rates over h2load's own wall time ("finished in", connection setup included)
        "rate_2xx_h2load": (len(durations_2xx) / summary["finished_s"]) if summary.get("finished_s") else None,
        "rate_h2load": (len(durations) / summary["finished_s"]) if summary.get("finished_s") else None,
        "h2load": summary,
    }
    with open(out_path, "w") as f:
        json.dump(result, f, indent=2)
    print(
        f"  {result['logged']} responses logged, statuses {result['statuses']}, "
        f"{summary.get('req_per_s', 0):,.0f} req/s (h2load), "
        f"p50 {fmt_ms(result['latency_ms']['p50'])} p99 {fmt_ms(result['latency_ms']['p99'])} "
        f"max {fmt_ms(result['latency_ms']['max'])} ms"
    )


# ---------------------------------------------------------------------------------------------
# the report


def fmt_ms(v):
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_int(v):
    return "–" if v is None else f"{v:,}"


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


# The targets (issue 15)
RATIO_TARGET = 0.4      # durable pushes/s at max load, as a ratio to nginx `return 200`
RATIO_AIM = 0.5
CPU_TARGET_US = 22.0    # server CPU per push
WRITER_TARGET_US = 7.0  # the store writer thread per push
P99_TARGET_MS = 5.0     # p99 at 5,000 pushes/s


def cpu_per_2xx_us(res, role):
    """µs of a role's CPU (utime+stime over the run) per 2xx answer, with the seconds it used; or (None, None)."""
    c = (res or {}).get("cpu") or {}
    j = (c.get("jiffies") or {}).get(role)
    if j is None or not c.get("hz") or not res.get("ok"):
        return None, None
    seconds = j / c["hz"]
    return seconds / res["ok"] * 1e6, seconds


def target_rows(hz, nx, meta, *, durable, nginx_rate, ratio, t1_met, t2_met, stored_new, total_2xx, sse_n, durable_ok):
    """The rows of the Targets table: ratio to nginx, CPU per push, writer per push, p99 at 5,000/s and at half
    of Herald's own max rate, and the ratio over TLS."""
    met = lambda ok: "**met**" if ok else "**not met**"  # noqa: E731
    rows = []
    if ratio is not None:
        rows.append(
            f"| durable pushes/s at max load (validation, decision, store, live fan-out) ≥ {RATIO_TARGET}× nginx "
            f"`return 200` (aim {RATIO_AIM}×) | {durable:,.0f} 2xx/s vs nginx {nginx_rate:,.0f} req/s = **{ratio:.2f}×**; "
            f"stored {fmt_int(stored_new)} of {fmt_int(total_2xx)} 2xx; live session got {fmt_int(sse_n)} | "
            f"{met(t1_met)} (aim {RATIO_AIM}×: {'met' if t1_met and ratio >= RATIO_AIM else 'not met'}) |"
        )
    else:
        rows.append(f"| durable pushes/s at max load ≥ {RATIO_TARGET}× nginx `return 200` | no result | **not met** |")
    for role, label, target in (("server", "server CPU", CPU_TARGET_US), ("writer", "the store writer thread", WRITER_TARGET_US)):
        us, seconds = cpu_per_2xx_us(hz["max"], role)
        if us is None:
            rows.append(f"| {label} ≤ {target:g} µs per push | not measured | **not met** |")
        else:
            rows.append(
                f"| {label} ≤ {target:g} µs per push | **{us:.1f} µs** ({seconds:.2f} s of CPU over the max-load run / "
                f"{hz['max']['ok']:,} 2xx) | {met(us <= target)} |"
            )
    rate_target, rate_res = meta.get("rate"), hz["rate"]
    if rate_target is not None and rate_target != 5000:
        rows.append(f"| p99 ≤ {P99_TARGET_MS:g} ms at 5,000 pushes/s | not measured: this run used {rate_target:,}/s (BENCH_RATE) | **not met** |")
    elif rate_res:
        rows.append(
            f"| p99 ≤ {P99_TARGET_MS:g} ms at 5,000 pushes/s | p99 **{fmt_ms(rate_res['latency_ms']['p99'])} ms** at "
            f"{rate_res.get('rate_h2load') or 0:,.0f} req/s achieved ({rate_res['not_ok']:,} non-2xx) | {met(t2_met)} |"
        )
    else:
        rows.append(f"| p99 ≤ {P99_TARGET_MS:g} ms at 5,000 pushes/s | no result | **not met** |")
    half, half_res = meta.get("half_rate"), hz["half"]
    if half and half_res:
        rows.append(
            f"| p99 at half of Herald's max rate in this run ({half:,}/s) | p99 **{fmt_ms(half_res['latency_ms']['p99'])} ms** "
            f"at {half_res.get('rate_h2load') or 0:,.0f} req/s achieved ({half_res['not_ok']:,} non-2xx) | reported (no target) |"
        )
    else:
        rows.append("| p99 at half of Herald's max rate | not measured (see the notes) | reported (no target) |")
    h_tls, n_tls = hz["tls"], nx["tls"]
    h_rate = (h_tls or {}).get("rate_2xx_h2load")
    n_rate = (n_tls or {}).get("h2load", {}).get("req_per_s")
    if h_rate and n_rate:
        tls_ratio = h_rate / n_rate
        tls = (h_tls["h2load"].get("tls") or {})
        rows.append(
            f"| over TLS (h2 by ALPN, {tls.get('protocol', '?')} {tls.get('cipher', '?')}): durable pushes/s ≥ {RATIO_TARGET}× "
            f"nginx with TLS + http2 | {h_rate:,.0f} 2xx/s vs nginx {n_rate:,.0f} req/s = **{tls_ratio:.2f}×** | "
            f"{met(tls_ratio >= RATIO_TARGET and durable_ok and h_tls['not_ok'] == 0)} |"
        )
    else:
        rows.append(f"| over TLS: durable pushes/s ≥ {RATIO_TARGET}× nginx with TLS + http2 | no result | **not met** |")
    return rows


def floor_section(hz, nx, fl):
    """Where a push's server CPU goes at max load: the HTTP/2 layer alone (herald-h2-floor: the same listener
    answering at once), the rest Herald's own work; nginx's whole request beside them; what the targets leave."""
    L = ["", "## The HTTP/2 floor", ""]
    herald_us, _ = cpu_per_2xx_us(hz["max"], "server")
    writer_us, _ = cpu_per_2xx_us(hz["max"], "writer")
    floor_us, _ = cpu_per_2xx_us(fl["max"], "server")
    nginx_us, _ = cpu_per_2xx_us(nx["max"], "server")
    floor_tls_us, _ = cpu_per_2xx_us(fl["tls"], "server")
    herald_tls_us, _ = cpu_per_2xx_us(hz["tls"], "server")
    if floor_us is None or herald_us is None:
        L.append("Not measured in this run (see the notes).")
        return L
    L.append(
        "`herald-h2-floor` runs Herald's APNs listener — the same event loops, NIOHTTP2 pipeline, connection handler "
        "and answer frames — with a handler that answers every request at once as an accepted push (an `apns-id` "
        "and an `apns-unique-id`), driven by the same h2load commands. Its CPU per request is what the HTTP/2 layer "
        "costs; a push's cost above it is Herald's own work (token, validation, decision, the store, the live "
        "fan-out). Server CPU (utime+stime, `/proc`) over the max-load runs, per 2xx answer:"
    )
    L.append("")
    L.append("| | µs per request (h2c) | µs per request (TLS) | req/s (h2c) |")
    L.append("|---|---|---|---|")
    rate = lambda res: f"{res['h2load'].get('req_per_s', 0):,.0f}" if res else "–"  # noqa: E731
    us = lambda v: f"{v:.1f}" if v is not None else "–"  # noqa: E731
    L.append(f"| nginx `return 200` (one worker) | {us(nginx_us)} | {us(cpu_per_2xx_us(nx['tls'], 'server')[0])} | {rate(nx['max'])} |")
    L.append(f"| Herald's HTTP/2 layer alone (`herald-h2-floor`) | {us(floor_us)} | {us(floor_tls_us)} | {rate(fl['max'])} |")
    L.append(f"| Herald, a durable push | {us(herald_us)} | {us(herald_tls_us)} | {rate(hz['max'])} |")
    L.append("")
    own = herald_us - floor_us
    sentence = (
        f"Of Herald's {herald_us:.1f} µs a push, the HTTP/2 layer is {floor_us:.1f} µs"
        + (f" ({floor_us / nginx_us:.1f}× nginx's whole request, {nginx_us:.1f} µs)" if nginx_us else "")
        + f" and Herald's own work {own:.1f} µs"
        + (f", of which the store's writer thread {writer_us:.1f} µs" if writer_us is not None else "")
        + ". "
    )
    if floor_us >= CPU_TARGET_US:
        sentence += (
            f"The {CPU_TARGET_US:g} µs target is below the HTTP/2 layer's own cost on this machine: it cannot be met "
            "without replacing NIOHTTP2 and HPACK, whatever the push path does."
        )
    else:
        sentence += (
            f"The {CPU_TARGET_US:g} µs target leaves {CPU_TARGET_US - floor_us:.1f} µs above the HTTP/2 layer for "
            f"everything a push does; it takes {own:.1f} µs."
        )
    if fl["max"] and nx["max"] and nx["max"]["h2load"].get("req_per_s"):
        share = fl["max"]["h2load"].get("req_per_s", 0) / nx["max"]["h2load"]["req_per_s"]
        sentence += (
            f" The floor itself reaches {share:.2f}× nginx's rate, so {RATIO_TARGET}× nginx leaves a push "
            f"{share / RATIO_TARGET:.2f}× the floor's time per request at the same CPU."
        )
    L.append(sentence)
    return L


def report(results_dir, out_path):
    R = lambda name: os.path.join(results_dir, name)  # noqa: E731
    meta = load(R("meta.json")) or {}
    hz = {p: load(R(f"herald-{p}.json")) for p in ("warmup", "max", "rate", "half", "tls")}
    nx = {p: load(R(f"nginx-{p}.json")) for p in ("max", "rate", "tls")}
    fl = {p: load(R(f"floor-{p}.json")) for p in ("max", "tls")}
    herald = load(R("herald.json")) or {}
    sse_state = load(R("sse.json")) or {}
    phases = load(R("phases.json")) or {}

    n_total = meta.get("requests")
    rate_target = meta.get("rate")
    rate_clients = meta.get("rate_clients")

    def row_max(res):
        if not res:
            return ["–"] * 6
        lat = res["latency_ms"]
        return [
            f"{res['h2load'].get('req_per_s', 0):,.0f}",
            f"{res['rate_2xx_h2load']:,.0f}" if res.get("rate_2xx_h2load") is not None else "–",
            fmt_ms(lat["p50"]),
            fmt_ms(lat["p90"]),
            fmt_ms(lat["p99"]),
            fmt_ms(lat["max"]),
        ]

    def row_rate(res):
        if not res:
            return ["–"] * 5
        lat = res["latency_ms"]
        return [
            f"{res['rate_h2load']:,.0f}" if res.get("rate_h2load") is not None else "–",
            fmt_ms(lat["p50"]),
            fmt_ms(lat["p90"]),
            fmt_ms(lat["p99"]),
            fmt_ms(lat["max"]),
        ]

    ok = lambda res: res["ok"] if res else 0  # noqa: E731
    smoke = herald.get("smoke_2xx", 0) + herald.get("tls_smoke_2xx", 0)
    herald_2xx_total = smoke + sum(ok(hz[p]) for p in hz)
    herald_non2xx_total = sum(hz[p]["not_ok"] for p in hz if hz[p])
    stored = herald.get("stored_after")
    stored_before = herald.get("stored_before")
    stored_new = (stored - (stored_before or 0)) if stored is not None else None
    sse_events = sse_state.get("notifications")
    sse_n = sse_state.get("distinct_ids")
    sse_dups = sse_state.get("duplicates") or 0

    durable_rate = hz["max"].get("rate_2xx_h2load") if hz["max"] else None
    stored_matches = stored_new is not None and stored_new == herald_2xx_total
    live_matches = sse_n is not None and sse_n == herald_2xx_total
    nginx_rate = (nx["max"] or {}).get("h2load", {}).get("req_per_s")
    ratio = durable_rate / nginx_rate if durable_rate is not None and nginx_rate else None
    t1_met = bool(
        ratio is not None
        and ratio >= RATIO_TARGET
        and stored_matches
        and live_matches
        and hz["max"]["not_ok"] == 0
    )
    rate_res = hz["rate"]
    achieved = rate_res.get("rate_h2load") if rate_res else None
    t2_met = bool(
        rate_res
        and rate_res["latency_ms"]["p99"] is not None
        and rate_res["latency_ms"]["p99"] <= P99_TARGET_MS
        and rate_res["not_ok"] == 0
        and achieved is not None
        and rate_target
        and achieved >= 0.95 * rate_target
    )

    def statuses(res):
        if not res:
            return "–"
        return ", ".join(f"{k}: {v:,}" for k, v in res["statuses"].items()) or "none"

    L = []
    L.append("# Benchmarks")
    L.append("")
    L.append(
        "Generated by `scripts/bench` — every figure below comes from the run described here; "
        "nothing is edited by hand. Re-run it to reproduce (it overwrites this file)."
    )
    L.append("")
    L.append(f"- Date: {meta.get('date', '–')}")
    L.append(f"- Command: `{meta.get('command', 'scripts/bench')}`")
    L.append(f"- Herald: `{meta.get('herald_bin', '–')}` ({meta.get('build', '–')}), commit `{meta.get('commit', '–')}`")
    L.append(f"- Machine: {meta.get('nproc', '–')} CPUs (`nproc`), {meta.get('cpu_model', '–')}, {meta.get('mem', '–')} RAM, {meta.get('kernel', '–')}")
    L.append(
        f"- Load average (1/5/15 min) at the start: {meta.get('loadavg_start', '–')}; at the end: {meta.get('loadavg_end', '–')}"
    )
    for label, key in (("Herald", "settle_herald"), ("nginx", "settle_nginx")):
        if meta.get(key):
            waited, busy = meta[key].split()
            L.append(
                f"- CPU use on the machine just before the {label} runs: {float(busy) * 100:.0f} % of all CPUs "
                f"over 3 s (after waiting {waited} s for it to drop to ≤ {float(meta.get('settle_busy', 0)) * 100:.0f} %)"
            )
    L.append(f"- Load generator: {meta.get('h2load_version', '–')}; ceiling: {meta.get('nginx_version', '–')}; SQLite CLI {meta.get('sqlite_version', '–')}")
    L.append(
        "- Everything runs on the same machine over 127.0.0.1: h2load (1 thread), the server under test, "
        "and — for Herald — the Python SSE reader of the live session."
    )
    L.append("")
    L.append("## Targets")
    L.append("")
    L.append(
        "The issue's targets, each measured in this run: Herald's runs, then nginx's on the same machine minutes later. "
        "CPU per push is the utime+stime (`/proc`) of the server process, and of its store writer thread "
        "(`herald-writer`), over the max-load run, divided by its 2xx answers."
    )
    L.append("")
    L.append("| target | measured | result |")
    L.append("|---|---|---|")
    L += target_rows(hz, nx, meta, durable=durable_rate, nginx_rate=nginx_rate, ratio=ratio, t1_met=t1_met,
                     t2_met=t2_met, stored_new=stored_new, total_2xx=herald_2xx_total, sse_n=sse_n,
                     durable_ok=stored_matches and live_matches)
    L.append("")
    L.append(
        "What the HTTP/2 layer costs alone is in [The HTTP/2 floor](#the-http2-floor); where the rest of a push's CPU "
        "goes, stage by stage, and what each CPU target leaves once the HTTP/2 layer and the durable store are paid, in "
        "[Where a push's CPU goes](#where-a-pushs-cpu-goes-perf)."
    )
    L.append("")
    L.append("## Results")
    L.append("")
    L.append(
        f"Max load: `h2load -n {n_total} -c {meta.get('clients')} -m {meta.get('streams')} -t 1` (h2c, prior knowledge). "
        f"Fixed rate: `h2load -n {meta.get('rate_requests')} -c {rate_clients} -m {meta.get('rate_streams')} "
        f"--rps {meta.get('rps_per_client')} -t 1` ({rate_target:,}/s for ~{meta.get('rate_seconds')} s); at half of "
        f"Herald's max rate: `h2load -n {meta.get('half_requests', '–')} -c {rate_clients} -m {meta.get('rate_streams')} "
        f"--rps {meta.get('half_rps_per_client', '–')} -t 1` ({fmt_int(meta.get('half_rate'))}/s, Herald only). "
        f"Over TLS: the max-load command against Herald's TLS APNs listener and nginx's `listen … ssl http2` "
        f"(h2 by ALPN{', ' + meta['tls_h2load_args'] if meta.get('tls_h2load_args') else ''}). "
        "Latencies in ms, from h2load's `--log-file` (request start → end of response, all responses), nearest-rank percentiles."
    )
    L.append("")
    L.append(
        "| | req/s (max load) | 2xx/s | p50 | p90 | p99 | max | achieved rate (fixed) | p50 | p90 | p99 | max | 2xx | stored | live session received |"
    )
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    h2xx = f"{smoke} + " + " + ".join(fmt_int(ok(hz[p])) for p in ("warmup", "max", "rate", "half", "tls")) + f" = {fmt_int(herald_2xx_total)}"
    L.append(
        "| Herald | "
        + " | ".join(row_max(hz["max"]) + row_rate(hz["rate"]))
        + f" | {h2xx} | {fmt_int(stored_new)} | {fmt_int(sse_n)} distinct ({fmt_int(sse_events)} events) |"
    )
    n2xx = " + ".join(fmt_int(ok(nx[p])) for p in ("max", "rate"))
    L.append("| nginx `return 200` | " + " | ".join(row_max(nx["max"]) + row_rate(nx["rate"])) + f" | {n2xx} | n/a | n/a |")
    L.append("| Herald, half its max rate | " + " | ".join(["–"] * 6 + row_rate(hz["half"])) + " | in Herald's | | |")
    L.append("| Herald over TLS | " + " | ".join(row_max(hz["tls"]) + ["–"] * 5) + " | in Herald's | | |")
    L.append("| nginx over TLS | " + " | ".join(row_max(nx["tls"]) + ["–"] * 5) + f" | {fmt_int(ok(nx['tls']))} | n/a | n/a |")
    L.append("| HTTP/2 floor (`herald-h2-floor`) | " + " | ".join(row_max(fl["max"]) + ["–"] * 5) + f" | {fmt_int(ok(fl['max']))} | n/a | n/a |")
    L.append("| HTTP/2 floor over TLS | " + " | ".join(row_max(fl["tls"]) + ["–"] * 5) + f" | {fmt_int(ok(fl['tls']))} | n/a | n/a |")
    for label, h, n in (("", hz["max"], nx["max"]), (" over TLS", hz["tls"], nx["tls"])):
        if h and n and n["h2load"].get("req_per_s"):
            share = h["h2load"].get("req_per_s", 0) / n["h2load"]["req_per_s"] * 100
            L.append("")
            L.append(f"Herald reaches {share:.0f} % of the nginx ceiling's request rate{label} on this machine.")
    L.append("")
    L.append(
        "Herald's 2xx column is two curl smoke pushes (h2c, and TLS with the server's CA) + warm-up + max load + fixed "
        "rate + half rate + TLS max load; all of them went to the same server and data directory. nginx's is max load + "
        "fixed rate; its TLS run's is on its own row (its warm-up is not shown)."
    )
    L += floor_section(hz, nx, fl)
    L += profile_section(load(R("profile.json")), cpu_per_2xx_us(fl["max"], "server")[0], CPU_TARGET_US,
                         WRITER_TARGET_US, meta.get("profile_command", "scripts/profile-push perf"))
    L.append("")
    L.append("## Durability and live delivery")
    L.append("")
    L.append(
        f"- Rows in `notifications` before the load: {fmt_int(stored_before)}; after the server stopped "
        f"(SIGTERM, exit status {herald.get('exit_status', '–')}, "
        f"{herald.get('stop_seconds', '–')} s): {fmt_int(stored)} "
        f"(`sqlite3 herald.sqlite 'select count(*) from notifications'`)."
    )
    L.append(
        f"- New rows {fmt_int(stored_new)} vs 2xx answers {fmt_int(herald_2xx_total)}: "
        + ("**equal** — every accepted push was stored." if stored_matches else "**mismatch** — see the notes.")
    )
    L.append(
        f"- The live session (SSE, `GET /v1/devices/<device>/stream`, connected before the load) received "
        f"{fmt_int(sse_events)} `event: notification` events carrying {fmt_int(sse_n)} distinct notifications (by the `id` "
        "in the event's data)"
        + (" — **all** accepted pushes" if live_matches else f" — **not** all {fmt_int(herald_2xx_total)} accepted pushes, see the notes")
        + f"; {fmt_int(sse_dups)} events repeated a notification already received; {fmt_int(sse_state.get('out_of_order'))} "
        f"events had a stream cursor (`id:`) not larger than the event before; {fmt_int(sse_state.get('distinct_cursors'))} distinct "
        f"stream cursors; {fmt_int(sse_state.get('removed'))} `removed` events."
    )
    regs = sse_state.get("regressions") or []
    if regs:
        shown = "; ".join(
            f"event {r['at_event']:,} ({r['t']:.1f} s after connecting): cursor {r['previous']:,} → {r['next']:,}, "
            f"row cursor {r.get('row_cursor')}, {'a repeat' if r.get('repeat') else 'new'}"
            for r in regs[:3]
        )
        L.append(f"- First stream-cursor regressions: {shown}.")
    recv = phases.get("sse_after_max")
    if recv is not None and hz["max"] is not None:
        L.append(
            f"- Right after the max-load run had finished, the session had received {fmt_int(recv)} distinct notifications "
            f"(of {fmt_int(smoke + ok(hz['warmup']) + ok(hz['max']))} accepted so far); it had them all "
            f"{phases.get('sse_catchup_max_s', '–')} s later."
        )
    if phases.get("sse_catchup_rate_s") is not None and hz["rate"] is not None:
        L.append(
            f"- After the fixed-rate run had finished, the session took {phases['sse_catchup_rate_s']} s more to have "
            + ("every accepted push." if live_matches else "what it got (it never had all of them; the wait gives up after 90 s without progress or 300 s).")
        )
    lags = [tuple(x) for x in (sse_state.get("lag_samples") or [])]
    if lags and phases.get("rate_start") and phases.get("rate_end"):
        in_rate = sorted(l for t, l in lags if phases["rate_start"] <= t <= phases["rate_end"] + 1)
        if in_rate:
            L.append(
                f"- Delivery lag during the fixed-rate run (`received_at` of the notification → the SSE reader "
                f"parsed it; 1 in {LAG_EVERY} first deliveries, ms resolution): p50 {fmt_ms(percentile(in_rate, 50))} ms, "
                f"p99 {fmt_ms(percentile(in_rate, 99))} ms, max {fmt_ms(percentile(in_rate, 100))} ms."
            )
    L.append("")
    L.append("## CPU during the runs")
    L.append("")
    L.append(
        "Average cores in use over each h2load run (from `/proc`: the server's process, the live session's reader, "
        "h2load, and everything else on the machine), of "
        f"{meta.get('nproc', '?')}; and the longest time in which no response completed."
    )
    L.append("")
    L.append("| run | wall s | server | h2load | SSE reader | other processes | idle | longest gap without a response | server µs per 2xx | writer thread µs per 2xx |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    named = (
        ("Herald warm-up", hz["warmup"]),
        ("Herald max load", hz["max"]),
        ("Herald fixed rate", hz["rate"]),
        ("Herald half rate", hz["half"]),
        ("Herald over TLS", hz["tls"]),
        ("nginx max load", nx["max"]),
        ("nginx fixed rate", nx["rate"]),
        ("nginx over TLS", nx["tls"]),
    )
    for name, res in named:
        if not res:
            continue
        c = res.get("cpu") or {}
        f2 = lambda v: "–" if v is None else f"{v:.2f}"  # noqa: E731
        idle = (c["cpus"] - c["busy"]) if c.get("cpus") is not None and c.get("busy") is not None else None
        gap = res.get("longest_gap_ms")
        gap_s = "–" if gap is None else (
            f"{fmt_ms(gap)} ms" + (f" (at {res['longest_gap_at_s']:.1f} s)" if res.get("longest_gap_at_s") is not None else "")
        )
        per = [cpu_per_2xx_us(res, role)[0] for role in ("server", "writer")]
        L.append(
            f"| {name} | {c.get('wall_s', '–')} | {f2(c.get('server'))} | {f2(c.get('loadgen'))} | "
            f"{f2(c.get('reader')) if 'reader' in c else 'n/a'} | {f2(c.get('other'))} | {f2(idle)} | {gap_s} | "
            + " | ".join("–" if v is None else f"{v:.1f}" for v in per) + " |"
        )
    L.append("")
    L.append("## Status codes")
    L.append("")
    for name, res in named:
        extra = ""
        if res and res["h2load"].get("requests"):
            r = res["h2load"]["requests"]
            extra = f" (h2load: {r['done']:,} done, {r['succeeded']:,} succeeded, {r['failed']:,} failed, {r['errored']:,} errored, {r['timeout']:,} timeout)"
        L.append(f"- {name}: {statuses(res)}{extra}")
    L.append("")
    L.append("## Notes")
    L.append("")
    for note in (meta.get("notes") or []):
        L.append(f"- {note}")
    if meta.get("build") == "debug":
        L.append("- **This is a debug build** (`HERALD_BIN` points at `.build/debug`): its figures are far below a release build's.")
    if not stored_matches:
        L.append(
            f"- Durability mismatch: {fmt_int(herald_2xx_total)} pushes were answered 2xx but {fmt_int(stored_new)} rows were added."
        )
    if not live_matches:
        L.append(
            f"- Live delivery mismatch: {fmt_int(herald_2xx_total)} accepted, the session received {fmt_int(sse_n)}"
            + (f" (session error: {sse_state.get('error')})" if sse_state.get("error") else "")
            + (" (the server closed the stream before the reader was stopped)" if sse_state.get("closed") else "")
            + "."
        )
    for target, res in ((rate_target, rate_res), (meta.get("half_rate"), hz["half"])):
        got = (res or {}).get("rate_h2load")
        if res and got is not None and target and got < 0.95 * target:
            L.append(
                f"- Herald could not sustain {target:,} pushes/s (it answered {got:,.0f}/s with "
                f"{rate_clients} × {meta.get('rate_streams')} streams in flight at most), so those fixed-rate latencies are those of an overloaded server."
            )
    busy_runs = [
        label
        for label, key in (("Herald", "settle_herald"), ("nginx", "settle_nginx"))
        if meta.get(key) and float(meta[key].split()[1]) > float(meta.get("settle_busy", 1))
    ]
    if busy_runs:
        L.append(
            f"- The machine was not quiet before the {' and '.join(busy_runs)} runs (other work was using its CPUs, "
            "see the list at the top): those figures are lower, and their latencies higher, than on an idle machine."
        )
    for name, res in named[1:]:
        if res and (res.get("longest_gap_ms") or 0) >= 1000:
            L.append(
                f"- {name}: no response completed for {res['longest_gap_ms'] / 1000:.1f} s, from "
                f"{res['longest_gap_at_s']:.1f} s into the run (a stall; see the CPU table for other work on the machine)."
            )
    for name, res in named:
        c = (res or {}).get("cpu") or {}
        if c.get("other") is not None and c["other"] >= 0.25:
            L.append(
                f"- {name}: other processes on the machine used {c['other']:.2f} cores on average during the run "
                "(the machine is shared), which lowers the figures."
            )
    if sse_dups:
        L.append(
            f"- The live session received {sse_dups:,} events for notifications it had already received (the contract: "
            "a stream sends every row after its cursor once, in seq order); see the cursor regressions above."
        )
    if herald_non2xx_total:
        L.append(f"- Herald answered {herald_non2xx_total:,} requests with a non-2xx status (see Status codes).")
    L.append(
        "- h2load, the server and the SSE reader compete for the same "
        f"{meta.get('nproc', '?')} CPUs (see the CPU table for who used what); nginx runs with one worker process."
    )
    L.append(
        "- The SSE reader (Python, `scripts/bench-tools.py sse`) counts a block of notification events at once: it reads each "
        "event's stream cursor, notification id and row cursor from the head of its `data:` line, and parses every "
        f"{FULL_PARSE_EVERY}th event as JSON whole (its id compared; {sse_state.get('bad_data') or 0:,} failed). "
        "A block with anything else (another event type, a repeat, a cursor out of order) is read event by event, each parsed."
    )
    L.append(
        "- The fixed-rate runs use h2load's `--rps` per client with enough concurrent streams per connection "
        "that a slow answer does not hold back the schedule. Rates (req/s, 2xx/s, achieved) are over h2load's own wall time "
        "(\"finished in\", connection setup included)."
    )
    L.append(
        f"- The payload is a {meta.get('payload_bytes', '~200')}-byte alert (title, subtitle, body, badge, sound, thread-id, category, one custom key); "
        "headers: `apns-topic`, `apns-push-type: alert`, `authorization: bearer <ES256 JWT>` (the same token on every connection); "
        "no `apns-id`, so Herald generates one per push. All pushes go to the single demo device."
    )
    if hz["tls"] or nx["tls"]:
        negotiated = "; ".join(
            f"{name}: {t.get('protocol', '?')}, {t.get('cipher', '?')}, ALPN {t.get('alpn', '?')}"
            for name, res in (("Herald", hz["tls"]), ("nginx", nx["tls"]))
            for t in [((res or {}).get("h2load") or {}).get("tls") or {}]
        )
        L.append(
            "- Over TLS, h2load checks no certificate: Herald's listener presents the certificate of its own CA (the TLS "
            "smoke push verified it with curl and `ca_path` of `herald demo --json`), nginx a self-signed P-256 certificate "
            f"made with openssl for the run; the same cipher suite is asked of both. Negotiated — {negotiated}."
        )
    L.append("")
    with open(out_path, "w") as f:
        f.write("\n".join(L))
    print(f"wrote {out_path}")
    print(f"  durable pushes/s >= {RATIO_TARGET}x nginx: {'met' if t1_met else 'not met'}"
          + (f" ({ratio:.2f}x)" if ratio is not None else ""))
    print(f"  p99 <= {P99_TARGET_MS:g} ms at {rate_target}/s: {'met' if t2_met else 'not met'}")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == "freeport":
        freeport()
    elif cmd == "wait-port":
        return wait_port(*args)
    elif cmd == "meta-set":
        meta_set(*args)
    elif cmd == "cpu-snap":
        cpu_snap(*args)
    elif cmd == "cpu-usage":
        cpu_usage(*args)
    elif cmd == "settle":
        return settle(*args)
    elif cmd == "writer-tid":
        tid, how = writer_thread(*args)
        if tid:
            print(tid, how)
    elif cmd == "json-get":
        json_get(*args)
    elif cmd == "jwt":
        jwt(*args)
    elif cmd == "sse":
        return sse(*args)
    elif cmd == "h2load-stats":
        h2load_stats(*args)
    elif cmd == "report":
        report(*args)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
