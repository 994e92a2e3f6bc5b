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
import json
import os
import re
import socket
import sys
import time

# scripts/ is the script's own directory: on sys.path. The report and the live session's reader are modules
# of their own; their names are here too (the tests and `main` use them from this file).
from bench_report import report  # noqa: F401
from bench_report_parts import (CPU_TARGET_US, RATIO_TARGET, WRITER_TARGET_US, cpu_per_2xx_us,  # noqa: F401
                                bursts, floor_section, fmt_ms, load, percentile, target_rows)
from bench_sse import sse  # noqa: F401


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
# h2load results


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
    starts = []
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
                starts.append(start_us)
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
        # how the requests were sent (h2load's --rps sends in bursts)
        "bursts": bursts(starts),
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
