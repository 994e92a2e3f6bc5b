"""The SSE stream served on the connection (EventStreamHandler) rather than by the router: byte for
byte an HTTP/1.1 event stream, on a fresh connection or after other requests, past the API's idle
timeout; a refused stream request gets the route's error and the connection serves on."""

from __future__ import annotations

import json
import socket
import time
from urllib.parse import urlsplit

import pytest

from herald_support import H2Client, alert_payload, new_apns_id


@pytest.fixture(scope="module")
def idle1(tmp_path_factory):
    """One server for the module whose API connections may be silent for 1 s (the default is 30 s)."""
    from conftest import start_env
    env = start_env(tmp_path_factory, "stream-conn", ["--api-idle-timeout", "1"])
    yield env
    assert env.server.stop(timeout=10) == 0


def connect(env) -> socket.socket:
    parts = urlsplit(env.api_url)
    s = socket.create_connection((parts.hostname, parts.port), timeout=10)
    return s


def stream_request(device, token: str | None = None, extra: str = "") -> bytes:
    return (f"GET /v1/devices/{device.device_id}/stream HTTP/1.1\r\nHost: herald\r\nAccept: text/event-stream\r\n"
            f"Authorization: Bearer {token or device.user_token}\r\n{extra}\r\n").encode()


class Reader:
    """Reads HTTP/1.1 responses off a raw socket: a head, a content-length body, chunked events."""

    def __init__(self, s: socket.socket):
        self.s, self.buf = s, b""

    def _fill(self, deadline: float) -> None:
        self.s.settimeout(max(0.05, deadline - time.monotonic()))
        data = self.s.recv(65536)
        if not data:
            raise EOFError("the server closed the connection")
        self.buf += data

    def until(self, marker: bytes, timeout: float = 5) -> bytes:
        deadline = time.monotonic() + timeout
        while marker not in self.buf:
            self._fill(deadline)
        head, _, self.buf = self.buf.partition(marker)
        return head + marker

    def head(self) -> tuple[int, dict[str, str]]:
        lines = self.until(b"\r\n\r\n").decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        return status, headers

    def body(self, length: int, timeout: float = 5) -> bytes:
        deadline = time.monotonic() + timeout
        while len(self.buf) < length:
            self._fill(deadline)
        body, self.buf = self.buf[:length], self.buf[length:]
        return body

    def chunk(self, timeout: float = 5) -> bytes:
        size = int(self.until(b"\r\n", timeout).strip(), 16)
        data = self.body(size + 2, timeout)
        assert data.endswith(b"\r\n")
        return data[:-2]

    def events(self, timeout: float = 5) -> list[dict]:
        """The next chunk's SSE events with data (comments skipped)."""
        out = []
        for block in self.chunk(timeout).decode().split("\n\n"):
            fields = dict(line.split(": ", 1) for line in block.split("\n") if line and not line.startswith(":"))
            if "data" in fields:
                out.append(fields)
        return out


def push(env, device, title="on the connection") -> str:
    with H2Client(env.apns_url) as c:
        apns_id = new_apns_id()
        st = c.push(device.device_token, env.headers(apns_id=apns_id), alert_payload(title))
        assert st.status == 200, st
    return apns_id


def next_notification(r: Reader, timeout: float = 5) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        events = r.events(max(0.1, deadline - time.monotonic()))
        if events:
            assert events[0]["event"] == "notification", events
            return json.loads(events[0]["data"])


def test_a_stream_is_chunked_sse_and_outlives_the_idle_timeout(idle1):
    env, device = idle1, idle1.new_device()
    s = connect(env)
    try:
        s.sendall(stream_request(device))
        r = Reader(s)
        status, headers = r.head()
        assert status == 200
        assert headers["content-type"] == "text/event-stream; charset=utf-8"
        assert headers["transfer-encoding"] == "chunked" and "content-length" not in headers
        assert headers["cache-control"] == "no-cache" and headers["x-accel-buffering"] == "no"
        assert r.chunk() == b": connected\n\n"
        # Three idle timeouts pass with nothing sent either way: the stream stays open.
        time.sleep(3)
        apns_id = push(env, device)
        assert next_notification(r)["id"] == apns_id
    finally:
        s.close()


def test_a_stream_after_other_requests_on_one_keep_alive_connection(idle1):
    env, device = idle1, idle1.new_device()
    first = push(env, device, "before")
    s = connect(env)
    try:
        r = Reader(s)
        s.sendall(f"GET /v1/devices/{device.device_id}/notifications HTTP/1.1\r\nHost: herald\r\n"
                  f"Authorization: Bearer {device.user_token}\r\n\r\n".encode())
        status, headers = r.head()
        listed = json.loads(r.body(int(headers["content-length"])))
        assert status == 200 and [n["id"] for n in listed["notifications"]] == [first]
        s.sendall(stream_request(device, extra="Last-Event-ID: 0\r\n"))
        status, headers = r.head()
        assert status == 200 and headers["content-type"].startswith("text/event-stream")
        assert r.chunk() == b": connected\n\n"
        assert next_notification(r)["id"] == first, "the backlog from the cursor"
        live = push(env, device)
        assert next_notification(r)["id"] == live
    finally:
        s.close()


def test_a_stream_pipelined_behind_a_request_is_served_in_order(idle1):
    env, device = idle1, idle1.new_device()
    s = connect(env)
    try:
        r = Reader(s)
        # Both requests in one write: the stream's head arrives while the first is in flight, so the
        # router serves it (its bytes never mix with the first response).
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n" + stream_request(device))
        status, headers = r.head()
        assert status == 200 and json.loads(r.body(int(headers["content-length"])))["status"] == "ok"
        status, headers = r.head()
        assert status == 200 and headers["content-type"].startswith("text/event-stream")
        assert r.chunk() == b": connected\n\n"
        apns_id = push(env, device)
        assert next_notification(r)["id"] == apns_id
    finally:
        s.close()


@pytest.mark.parametrize("case", ["bad token", "another user's device", "bad cursor"])
def test_a_refused_stream_gets_the_routes_error_and_the_connection_serves_on(idle1, case):
    env, device = idle1, idle1.new_device()
    other = env.new_device()
    request = {
        "bad token": stream_request(device, token="not-a-token"),
        "another user's device": stream_request(device, token=other.user_token),
        "bad cursor": stream_request(device, extra="Last-Event-ID: soon\r\n"),
    }[case]
    expected = {"bad token": (401, "unauthorized"), "another user's device": (404, "device_not_found"),
                "bad cursor": (400, None)}[case]
    s = connect(env)
    try:
        r = Reader(s)
        s.sendall(request)
        status, headers = r.head()
        body = json.loads(r.body(int(headers["content-length"])))
        assert status == expected[0], body
        assert headers["content-type"].startswith("application/json")
        if expected[1]:
            assert body["error"]["code"] == expected[1], body
        assert body["error"]["message"]
        # The same connection serves the next request.
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n")
        status, headers = r.head()
        assert status == 200 and json.loads(r.body(int(headers["content-length"])))["status"] == "ok"
    finally:
        s.close()
