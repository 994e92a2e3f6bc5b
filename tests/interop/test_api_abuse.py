"""Abuse of the JSON API (Hummingbird, --api-port): streams that never read, huge bodies, a body that
never ends. Each keeps the server's memory bounded, gets a clear answer (a JSON error
with a message) or a closed connection, and leaves other users served. Cost: ~15 s."""

from __future__ import annotations

import base64
import os
import resource
import socket
import time
from urllib.parse import urlsplit

import pytest

from h2_attacks import RssSampler, vm_kib
from herald_support import REPORT, H2Client, alert_payload, new_apns_id, payload_of_size, stalled_sse_socket


def raw_api_socket(env, rcvbuf: int | None = None) -> socket.socket:
    parts = urlsplit(env.api_url)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(10)
    s.connect((parts.hostname, parts.port))
    return s


def read_until_closed(s: socket.socket, timeout: float) -> tuple[bytes, float | None]:
    """What the server sent, and when (seconds) it closed the connection (None: still open)."""
    answer, start = b"", time.monotonic()
    s.settimeout(0.2)
    while time.monotonic() - start < timeout:
        try:
            data = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            return answer, time.monotonic() - start
        if not data:
            return answer, time.monotonic() - start
        answer += data
    return answer, None


def others_are_served(env) -> None:
    """Another user reads their list, and a provider's push is answered and listed."""
    other = env.new_device()
    with H2Client(env.apns_url) as c:
        apns_id = new_apns_id()
        st = c.push(other.device_token, env.headers(apns_id=apns_id), alert_payload("bystander"))
        assert st.status == 200, st
    assert apns_id in env.listed_ids(other)


@pytest.fixture
def short_idle(herald_factory):
    """A server whose API connections may stay silent mid-request for 1 s (the default is 30 s)."""
    return herald_factory("api-idle", ["--api-idle-timeout", "1"])


def test_a_body_that_never_ends_is_cut_off_at_the_idle_timeout(short_idle):
    env = short_idle
    s = raw_api_socket(env)
    try:
        s.sendall(b"POST /v1/admin/users HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer " + env.admin_token.encode()
                  + b"\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"name\":\"slow")
        others_are_served(env)
        _, closed = read_until_closed(s, 6)
        assert closed is not None, "a request body that stopped coming kept its connection open"
    finally:
        s.close()
    users = env.admin("GET", "/v1/admin/users")["users"]
    assert not any(u["name"].startswith("slow") for u in users), users


def test_headers_that_never_end_are_cut_off_with_408(short_idle):
    """Slowloris: a request line, then a header every 0.3 s, never the blank line. The first head of a
    connection must arrive within the idle timeout (RequestHeadGuard), else 408 and closed."""
    env = short_idle
    s = raw_api_socket(env)
    try:
        s.sendall(b"GET /v1/me/preferences HTTP/1.1\r\nHost: herald\r\n")
        start, closed_at = time.monotonic(), None
        for index in range(40):  # 12 s of trickling, far past the 1 s timeout
            try:
                s.sendall(b"X-Slow-%d: 1\r\n" % index)
            except OSError:
                closed_at = time.monotonic() - start
                break
            time.sleep(0.3)
        answer, closed = read_until_closed(s, 3)
        assert closed_at is not None or closed is not None, "headers that never ended kept the connection open"
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b'"code":"request_timeout"' in answer, answer
        others_are_served(env)
    finally:
        s.close()


def test_a_head_sent_a_byte_at_a_time_within_the_timeout_is_served(herald, device):
    """The blank line split over reads (and every other byte) still ends the head."""
    s = raw_api_socket(herald)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        request = (b"GET /v1/me/preferences HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer "
                   + device.user_token.encode() + b"\r\nConnection: close\r\n\r\n")
        for index in range(len(request)):
            s.sendall(request[index:index + 1])
            if index % 16 == 0:
                time.sleep(0.001)
        answer, closed = read_until_closed(s, 5)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    finally:
        s.close()


def test_a_request_head_over_the_limit_is_refused_with_431(herald, device):
    """Header bytes past 96 KiB without the blank line: 431 as JSON, closed, and the server serves on."""
    s = raw_api_socket(herald)
    try:
        s.sendall(b"GET /v1/me/preferences HTTP/1.1\r\nHost: herald\r\n")
        sent = 0
        try:
            while sent < 1 << 20:
                s.sendall(b"X-Big: " + b"a" * 4000 + b"\r\n")
                sent += 4009
        except OSError:
            pass
        answer, closed = read_until_closed(s, 5)
        assert closed is not None, "the connection stayed open"
        assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
        assert b'"code":"request_head_too_large"' in answer, answer
        assert sent < 1 << 20 or closed is not None
    finally:
        s.close()
    others_are_served(herald)


def test_an_idle_keep_alive_connection_is_closed_but_a_quiet_stream_is_not(short_idle):
    """Between requests the idle timeout applies; an SSE stream being answered is never idle."""
    env = short_idle
    device = env.new_device()
    stream = stalled_sse_socket(env.api_url, device.device_id, device.user_token, rcvbuf=65536)
    idle = raw_api_socket(env)
    try:
        idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n")
        answer, closed = read_until_closed(idle, 6)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:100]
        assert closed is not None, "an idle keep-alive connection was kept past the idle timeout"
        stream.settimeout(0.2)
        got = b""
        deadline = time.monotonic() + 1
        while time.monotonic() < deadline:
            try:
                data = stream.recv(65536)
            except socket.timeout:
                continue
            assert data, "the SSE stream was closed by the idle timeout"
            got += data
        assert got.startswith(b"HTTP/1.1 200"), got[:100]
    finally:
        idle.close()
        stream.close()


def test_a_huge_declared_body_is_refused_with_413_without_reading_it(herald, device):
    """Content-Length of 1 GB: 413 `payload_too_large` as JSON with `connection: close` once the first
    64 KiB are in (the client need not send the rest to get it); then the server closes the connection
    instead of reading the rest (it discards at most 1 MiB or 2 s while the client reads the answer),
    nothing changed, the server serves on."""
    users_before = len(herald.admin("GET", "/v1/admin/users")["users"])
    s = raw_api_socket(herald)
    sent = 0
    answer = b""
    try:
        s.sendall(b"POST /v1/admin/users HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer "
                  + herald.admin_token.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n")
        chunk = b"a" * 65536
        s.settimeout(0.5)
        start = time.monotonic()
        # Keep sending (as a client that ignores the answer would) for up to 8 s or 256 MiB.
        while time.monotonic() - start < 8 and sent < 256 << 20:
            try:
                s.sendall(chunk)
                sent += len(chunk)
            except socket.timeout:
                continue
            except OSError:
                break
        s.settimeout(5)
        while True:
            try:
                data = s.recv(65536)
            except OSError:
                break
            if not data:
                break
            answer += data
    finally:
        s.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    head, body = answer.split(b"\r\n\r\n", 1)
    assert b"connection: close" in head.lower(), head
    assert b'"payload_too_large"' in body and b'"message"' in body, body[:300]
    # The server stopped reading: the client could not push the body through (it read it all
    # before, 64 KiB at a time; kernel buffers on both ends hold a few MiB).
    assert sent < 64 << 20, f"the server kept reading the refused body ({sent >> 20} MiB sent)"
    assert len(herald.admin("GET", "/v1/admin/users")["users"]) == users_before
    others_are_served(herald)


def test_a_chunked_body_over_the_limit_is_refused_with_413(herald, device):
    s = raw_api_socket(herald)
    try:
        s.sendall(b"PUT /v1/me/preferences HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer "
                  + device.user_token.encode() + b"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"10000\r\n" + b"a" * 0x10000 + b"\r\n"
        s.settimeout(0.5)
        for _ in range(64):
            try:
                s.sendall(chunk)
            except (socket.timeout, OSError):
                break
        answer, _ = read_until_closed(s, 5)
    finally:
        s.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"payload_too_large"' in answer, answer[:300]
    others_are_served(herald)


def settled_rss_kib(pid: int, quiet_kib: int = 1024, timeout: float = 15) -> int:
    """The server's RSS once it has stopped moving (two readings 0.5 s apart within `quiet_kib`), or after `timeout`
    seconds: 400 sessions take their share of a round of pushes over a while, longer with the whole suite running
    (a fresh-clone run measured the first level 0.5 s after the pushes while the sessions still filled)."""
    deadline = time.monotonic() + timeout
    last = vm_kib(pid, "VmRSS")
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = vm_kib(pid, "VmRSS")
        if abs(now - last) <= quiet_kib:
            return now
        last = now
    return last


def test_many_sse_and_websocket_streams_that_never_read_stay_bounded(herald):
    """300 SSE and 100 WebSocket sessions of one device that never read: 500 pushes of 3 KB fill what
    each may hold (the kernel's socket buffers, then its connection's write buffer, its output and its
    queue, bounded in bytes), then rounds of 500 more leave the server where it was once malloc's working
    set is reached — a stalled session costs the same after 1,500 pushes or 2,500, the rest falls back to
    the store — and another user's push and list are served meanwhile."""
    device = herald.new_device()
    pid = herald.server.proc.pid
    start_kib = vm_kib(pid, "VmRSS")
    socks = []
    try:
        for _ in range(300):
            socks.append(stalled_sse_socket(herald.api_url, device.device_id, device.user_token, rcvbuf=4096))
        parts = urlsplit(herald.api_url)
        for _ in range(100):
            s = raw_api_socket(herald, rcvbuf=4096)
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall((f"GET /v1/devices/{device.device_id}/stream HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                       f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                       f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {device.user_token}\r\n\r\n").encode())
            socks.append(s)
        payload = payload_of_size(3000)
        levels = []
        with H2Client(herald.apns_url) as c:
            for count in (500,) * 5:
                results = c.push_many([(device.device_token, herald.headers(), payload) for _ in range(count)],
                                      window=50)
                assert all(r.status == 200 for r in results), [r for r in results if r.status != 200][:3]
                levels.append(settled_rss_kib(pid))
        others_are_served(herald)
    finally:
        for s in socks:
            s.close()
    first, *steps = [(b - a) / 400 for a, b in zip([start_kib] + levels, levels)]
    later = max(steps[-2:])
    REPORT.append(f"400 stalled SSE/WebSocket sessions: {first:.0f} KiB a session after 500 pushes of 3 KB (its "
                  f"connection included), then after each 500 more: {', '.join(f'{step:+.0f}' for step in steps)} KiB")
    # Bounded in events only (1,000 a queue), each session took ~0.5 KiB more with every push: ~250 KiB
    # over these 500. Bounded, it grows by what malloc keeps: +14 to +41 KiB measured (sessions served on
    # the connection, session 17; +41 in one fresh-clone run, over the 40 this bound was before; +89 in one
    # of session 21). What malloc keeps takes up to three rounds to reach its working set (session 21, 8 rounds:
    # +24, +86, +7, +2, +9, +6, +10 KiB after the first): the bound holds for each of rounds 4 and 5, the levels
    # read once RSS settles.
    assert later < 80, f"each stalled session grew by {later:.0f} KiB over 500 more pushes"
    # What it costs once at its bound: 165-225 KiB in a debug build, depending on what malloc kept of
    # the tests before (the bound, not this figure, is what `later` checks).
    assert first < 320, f"{first:.0f} KiB a stalled session"


def closed_by_server(sockets) -> int:
    """How many of the sockets the server has closed (read at once, without waiting)."""
    closed = 0
    for s in sockets:
        s.setblocking(False)
        try:
            closed += s.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    return closed


def test_api_connections_past_the_limit_are_closed_at_once(herald_factory):
    """The API takes at most 40% of the open-files limit (here lowered to 256 for the server: 102
    connections); past it a new connection is closed at once, and once connections close new ones are
    served again."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    try:
        env = herald_factory("api-fd-limit")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    device = env.new_device()
    sockets = []
    try:
        for _ in range(150):
            sockets.append(raw_api_socket(env))
        time.sleep(1.0)
        closed = closed_by_server(sockets)
        assert 150 - 102 <= closed <= 150 - 90, f"{closed} of 150 closed"
    finally:
        for s in sockets:
            s.close()
    time.sleep(0.5)
    assert env.listed_ids(device) == []


def test_api_max_connections_sets_the_limit(herald_factory):
    """`--api-max-connections 20`: the 21st connection at once is closed at once (a node kept for many
    sessions raises it instead, with `ulimit -n`)."""
    env = herald_factory("api-max-20", ["--api-max-connections", "20"])
    sockets = [raw_api_socket(env) for _ in range(30)]
    try:
        time.sleep(1.0)
        closed = closed_by_server(sockets)
        assert closed == 10, f"{closed} of 30 closed"
    finally:
        for s in sockets:
            s.close()
    time.sleep(0.5)
    assert env.api("GET", "/healthz").status == 200
