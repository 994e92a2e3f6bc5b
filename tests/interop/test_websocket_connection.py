"""The WebSocket stream served on the connection (WebSocketStreamHandler): the protocol's server side
as RFC 6455 and a strict client (python-websockets) expect it — pings, the close handshake, protocol
errors, the server's own pings — and a shutdown that says goodbye with 1000."""

from __future__ import annotations

import base64
import os
import socket
import struct
import time
from urllib.parse import urlsplit

import pytest
from websockets.sync.client import connect as ws_connect

from herald_support import H2Client, alert_payload, new_apns_id


@pytest.fixture(scope="module")
def fast_pings(tmp_path_factory):
    """One server for the module whose WebSocket streams ping every 0.5 s."""
    from conftest import start_env
    env = start_env(tmp_path_factory, "ws-conn", ["--websocket-ping-interval", "0.5"])
    yield env
    assert env.server.stop(timeout=10) == 0


class RawWebSocket:
    """A WebSocket client over a raw socket: it sends what a test asks, masked, and never answers on
    its own (no pongs, no closes)."""

    def __init__(self, env, device):
        parts = urlsplit(env.api_url)
        self.s = socket.create_connection((parts.hostname, parts.port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall((f"GET /v1/devices/{device.device_id}/stream HTTP/1.1\r\nHost: herald\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                        f"Authorization: Bearer {device.user_token}\r\n\r\n").encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self._fill(time.monotonic() + 10)
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head

    def _fill(self, deadline: float) -> None:
        self.s.settimeout(max(0.05, deadline - time.monotonic()))
        data = self.s.recv(65536)
        if not data:
            raise EOFError("closed")
        self.buf += data

    def send(self, opcode: int, payload: bytes = b"", fin: bool = True, rsv: int = 0) -> None:
        mask = os.urandom(4)
        first = (0x80 if fin else 0) | (rsv << 4) | opcode
        n = len(payload)
        head = struct.pack("!BB", first, 0x80 | n) if n < 126 else struct.pack("!BBH", first, 0x80 | 126, n)
        self.s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def frame(self, timeout: float = 5) -> tuple[int, bool, bytes]:
        deadline = time.monotonic() + timeout
        while True:
            if len(self.buf) >= 2:
                first, second = self.buf[0], self.buf[1]
                n, at = second & 0x7F, 2
                if n == 126 and len(self.buf) >= 4:
                    n, at = struct.unpack("!H", self.buf[2:4])[0], 4
                elif n == 127 and len(self.buf) >= 10:
                    n, at = struct.unpack("!Q", self.buf[2:10])[0], 10
                if n < 126 or at > 2:
                    assert not second & 0x80, "a server's frames are not masked"
                    if len(self.buf) >= at + n:
                        payload, self.buf = self.buf[at:at + n], self.buf[at + n:]
                        return first & 0x0F, bool(first & 0x80), payload
            self._fill(deadline)

    def until(self, opcode: int, timeout: float = 5) -> bytes:
        deadline = time.monotonic() + timeout
        while True:
            op, _, payload = self.frame(max(0.05, deadline - time.monotonic()))
            if op == opcode:
                return payload

    def closed_within(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self._fill(deadline)
                self.buf = b""
        except EOFError:
            return True
        except (socket.timeout, TimeoutError):
            return False
        return False

    def close(self) -> None:
        self.s.close()


def close_code(payload: bytes) -> int:
    return struct.unpack("!H", payload[:2])[0]


def push(env, device, title="ws") -> str:
    with H2Client(env.apns_url) as c:
        apns_id = new_apns_id()
        st = c.push(device.device_token, env.headers(apns_id=apns_id), alert_payload(title))
        assert st.status == 200, st
    return apns_id


def test_a_ping_gets_its_pong_and_events_flow_past_many_server_pings(fast_pings):
    env, device = fast_pings, fast_pings.new_device()
    url = env.api_url.replace("http://", "ws://") + f"/v1/devices/{device.device_id}/stream"
    # python-websockets answers the server's pings by itself.
    with ws_connect(url, additional_headers={"Authorization": f"Bearer {device.user_token}"}) as ws:
        assert ws.ping(b"are you there").wait(5), "no pong"
        time.sleep(2.5)  # five of the server's ping intervals
        apns_id = push(env, device)
        import json
        message = json.loads(ws.recv(timeout=5))
        assert message["type"] == "notification" and message["notification"]["id"] == apns_id


def test_a_client_that_does_not_answer_pings_is_closed_with_1001(fast_pings):
    ws = RawWebSocket(fast_pings, fast_pings.new_device())
    try:
        payload = ws.until(0x9, timeout=3)  # the server's ping
        assert len(payload) == 16
        close = ws.until(0x8, timeout=3)
        assert close_code(close) == 1001 and close[2:] == b"Ping timeout"
        assert ws.closed_within(3)
    finally:
        ws.close()


def test_answered_pings_keep_a_raw_client_open(fast_pings):
    ws = RawWebSocket(fast_pings, fast_pings.new_device())
    try:
        for _ in range(4):
            ws.send(0xA, ws.until(0x9, timeout=3))  # pong with the ping's payload
        ws.send(0x9, b"mine")
        assert ws.until(0xA) == b"mine"
    finally:
        ws.close()


@pytest.mark.parametrize("body,expected", [(b"", 1000), (struct.pack("!H", 1000), 1000),
                                           (struct.pack("!H", 4001) + b"bye", 1000), (b"\x03", 1002),
                                           (struct.pack("!H", 999), 1002), (struct.pack("!H", 1000) + b"\xff\xfe", 1002)])
def test_a_clients_close_is_answered_then_the_connection_closes(fast_pings, body, expected):
    ws = RawWebSocket(fast_pings, fast_pings.new_device())
    try:
        ws.send(0x8, body)
        assert close_code(ws.until(0x8)) == expected
        assert ws.closed_within(3)
    finally:
        ws.close()


@pytest.mark.parametrize("case", ["reserved opcode", "reserved bits", "fragmented ping", "long ping"])
def test_protocol_errors_are_closed_with_1002(fast_pings, case):
    ws = RawWebSocket(fast_pings, fast_pings.new_device())
    try:
        if case == "reserved opcode":
            ws.send(0x3, b"?")
        elif case == "reserved bits":
            ws.send(0x1, b"hello", rsv=4)
        elif case == "fragmented ping":
            ws.send(0x9, b"part", fin=False)
        else:
            ws.send(0x9, b"x" * 126)
        close = ws.until(0x8)
        assert close_code(close) == 1002
        if case.startswith("reserved"):
            ws.send(0x8, close[:2])  # the server waits for the client's close (up to 15 s), then closes
        assert ws.closed_within(3)
    finally:
        ws.close()


def test_messages_from_the_client_are_read_and_dropped(fast_pings):
    ws = RawWebSocket(fast_pings, fast_pings.new_device())
    try:
        ws.send(0x1, b"hello", fin=False)
        ws.send(0x0, b" world")
        ws.send(0x2, b"\x00\x01")
        ws.send(0x9, b"still there")
        assert ws.until(0x9 + 1) == b"still there"
    finally:
        ws.close()


def test_an_upgrade_after_another_request_is_redirected_to_a_new_connection(fast_pings):
    env, device = fast_pings, fast_pings.new_device()
    parts = urlsplit(env.api_url)
    s = socket.create_connection((parts.hostname, parts.port), timeout=10)
    try:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n")
        answer = b""
        while b'"ok"' not in answer:
            answer += s.recv(4096)
        s.sendall((f"GET /v1/devices/{device.device_id}/stream?cursor=0 HTTP/1.1\r\nHost: herald\r\n"
                   "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                   f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {device.user_token}\r\n\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += s.recv(4096)
        head = answer.decode().lower()
        assert head.startswith("http/1.1 307"), head
        assert f"location: /v1/devices/{device.device_id}/stream?cursor=0" in head and "connection: close" in head
    finally:
        s.close()


def test_shutdown_closes_websocket_streams_with_1000(herald_factory):
    env = herald_factory("ws-shutdown")
    ws = RawWebSocket(env, env.new_device())
    try:
        t0 = time.monotonic()
        env.server.proc.send_signal(15)
        close = ws.until(0x8, timeout=10)
        assert close_code(close) == 1000
        ws.send(0x8, close[:2])  # the client answers; the server closes
        assert ws.closed_within(10)
        assert env.server.proc.wait(timeout=20) == 0
        assert time.monotonic() - t0 < 15
    finally:
        ws.close()
