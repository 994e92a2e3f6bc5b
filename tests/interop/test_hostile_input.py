"""Hostile input on the APNs listeners: a connection that breaks the protocol is closed, its memory
does not grow, and a well-behaved provider on another connection keeps being answered.

The attacks are written frame by frame over raw sockets (hyperframe + hpack, from the `h2` package)
against h2c, TLS without ALPN (the HTTP/2 preface right away, as aioapns) and TLS with ALPN `h2`, and
byte by byte against HTTP/1.1 (cleartext and TLS with ALPN `http/1.1`)."""

from __future__ import annotations

import socket
import ssl
import time
from urllib.parse import urlsplit

import pytest
from hpack import Encoder
from hyperframe.frame import (
    ContinuationFrame, DataFrame, Frame, GoAwayFrame, HeadersFrame, RstStreamFrame, SettingsFrame,
)

from herald_support import REPORT, H2Client, alert_payload, new_apns_id

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
H2_MODES = ("h2c", "tls-no-alpn", "tls-alpn-h2")
H1_MODES = ("http1", "tls-alpn-http1")

# RFC 9113 §7 error codes
PROTOCOL_ERROR, FRAME_SIZE_ERROR, COMPRESSION_ERROR, ENHANCE_YOUR_CALM = 0x1, 0x6, 0x9, 0xB


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def open_socket(env, mode: str) -> socket.socket:
    tls = mode.startswith("tls")
    parts = urlsplit(env.apns_tls_url if tls else env.apns_url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if not tls:
        return sock
    ctx = ssl.create_default_context(cafile=env.ca_path)
    if mode == "tls-alpn-h2":
        ctx.set_alpn_protocols(["h2", "http/1.1"])
    elif mode == "tls-alpn-http1":
        ctx.set_alpn_protocols(["http/1.1"])
    sock = ctx.wrap_socket(sock, server_hostname=parts.hostname)
    if mode == "tls-alpn-h2":
        assert sock.selected_alpn_protocol() == "h2"
    if mode == "tls-alpn-http1":
        assert sock.selected_alpn_protocol() == "http/1.1"
    return sock


class RawH2:
    """One HTTP/2 connection that writes whatever frames a test builds and reads the server's frames."""

    def __init__(self, env, mode: str):
        self.env = env
        self.sock = open_socket(env, mode)
        self.tls = mode != "h2c"
        self.encoder = Encoder()
        self.inbuf = b""
        self.frames: list[Frame] = []
        self.eof = False
        self.sock.sendall(PREFACE + SettingsFrame(0).serialize())

    def send(self, *frames: Frame | bytes) -> None:
        self.sock.sendall(b"".join(f if isinstance(f, bytes) else f.serialize() for f in frames))

    def request_headers(self, token: str, apns_id: str | None = None, extra=()) -> list[tuple[str, str]]:
        parts = urlsplit(self.env.apns_tls_url if self.tls else self.env.apns_url)
        return [(":method", "POST"), (":scheme", "https" if self.tls else "http"),
                (":path", f"/3/device/{token}"), (":authority", f"{parts.hostname}:{parts.port}"),
                *self.env.headers(apns_id=apns_id or new_apns_id()), *extra]

    def push_frames(self, stream_id: int, token: str, apns_id: str) -> list[Frame]:
        headers = HeadersFrame(stream_id, self.encoder.encode(self.request_headers(token, apns_id)))
        headers.flags.add("END_HEADERS")
        body = DataFrame(stream_id, b'{"aps":{"alert":"before the error"}}')
        body.flags.add("END_STREAM")
        return [headers, body]

    def read(self, timeout: float) -> bool:
        """Reads what arrives within `timeout`; False once the server closed the connection."""
        if self.eof:
            return False
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1 << 16)
        except (socket.timeout, BlockingIOError, ssl.SSLWantReadError):
            return True
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError, OSError):
            data = b""
        if not data:
            self.eof = True
            return False
        self.inbuf += data
        while len(self.inbuf) >= 9:
            frame, length = Frame.parse_frame_header(memoryview(self.inbuf[:9]))
            if len(self.inbuf) < 9 + length:
                break
            frame.parse_body(memoryview(self.inbuf[9:9 + length]))
            self.inbuf = self.inbuf[9 + length:]
            self.frames.append(frame)
        return True

    def read_until_closed(self, timeout: float) -> float | None:
        """Seconds until the server closed the connection, or None if it was still open at `timeout`."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if not self.read(0.1):
                return time.monotonic() - start
        return None

    def goaway(self) -> GoAwayFrame | None:
        return next((f for f in self.frames if isinstance(f, GoAwayFrame)), None)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def flood(conn: RawH2, frames, seconds: float) -> tuple[int, float | None]:
    """Sends `frames()` (bytes) until the server closes the connection or `seconds` pass.
    Returns the bytes the server took and when (seconds from the start) the connection was closed."""
    sent, start = 0, time.monotonic()
    conn.sock.settimeout(0.5)
    while time.monotonic() - start < seconds:
        try:
            chunk = frames()
            conn.sock.sendall(chunk)
            sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout, OSError):
            break
        if not conn.read(0):
            return sent, time.monotonic() - start
    closed = conn.read_until_closed(max(0.1, seconds - (time.monotonic() - start)))
    return sent, None if closed is None else time.monotonic() - start


def assert_bystander_served(env, device, mode: str = "h2c") -> None:
    """A well-behaved provider on its own connection still gets its push answered and stored."""
    url = env.apns_url if mode == "h2c" else env.apns_tls_url
    with H2Client(url, cafile=env.ca_path if url.startswith("https") else None) as c:
        apns_id = new_apns_id()
        st = c.push(device.device_token, env.headers(apns_id=apns_id), alert_payload("bystander"))
        assert st.status == 200, st
    assert apns_id in env.listed_ids(device)


@pytest.mark.parametrize("mode", H2_MODES)
def test_continuation_flood_closes_the_connection_and_memory_stays_bounded(herald, device, mode):
    pid = herald.server.proc.pid
    before = rss_kib(pid)
    conn = RawH2(herald, mode)
    try:
        block = conn.encoder.encode(conn.request_headers(device.device_token))
        conn.send(HeadersFrame(1, block[:8]))  # no END_HEADERS: the block goes on in CONTINUATION frames
        chunk = ContinuationFrame(1, b"\x00" * 13_000).serialize()  # a literal that never ends
        sent, closed_after = flood(conn, lambda: chunk * 8, seconds=8)
        assert closed_after is not None, f"still open after a CONTINUATION flood of {sent / 1e6:.0f} MB"
        goaway = conn.goaway()
        assert goaway is not None and goaway.error_code in (PROTOCOL_ERROR, ENHANCE_YOUR_CALM, COMPRESSION_ERROR), \
            conn.frames
        # The server stops reading at the error; what it took is what was in flight on the socket.
        assert sent < 32 << 20, f"the server read {sent / 1e6:.0f} MB before closing"
    finally:
        conn.close()
    grown = rss_kib(pid) - before
    REPORT.append(f"CONTINUATION flood ({mode}): closed after {closed_after * 1000:.0f} ms, "
                  f"{sent / 1e6:.2f} MB sent, server RSS {grown / 1024:+.1f} MiB")
    assert grown < 64 << 10, f"server memory grew by {grown >> 10} MiB during the flood"
    assert_bystander_served(herald, device)


@pytest.mark.parametrize("mode", H2_MODES)
def test_rapid_reset_closes_the_connection(herald, device, mode):
    conn = RawH2(herald, mode)
    try:
        state = {"stream": 1}

        def headers_then_reset() -> bytes:
            out = []
            for _ in range(50):
                sid = state["stream"]
                state["stream"] += 2
                h = HeadersFrame(sid, conn.encoder.encode(conn.request_headers(device.device_token)))
                h.flags.add("END_HEADERS")
                out += [h.serialize(), RstStreamFrame(sid, error_code=0x8).serialize()]  # CANCEL
            return b"".join(out)

        sent, closed_after = flood(conn, headers_then_reset, seconds=8)
        assert closed_after is not None, f"still open after {(state['stream'] - 1) // 2} HEADERS + RST_STREAM"
        REPORT.append(f"rapid reset ({mode}): closed after {closed_after * 1000:.0f} ms and at most "
                      f"{(state['stream'] - 1) // 2} HEADERS + RST_STREAM sent")
        goaway = conn.goaway()
        assert goaway is not None and goaway.error_code == ENHANCE_YOUR_CALM, conn.frames
    finally:
        conn.close()
    assert_bystander_served(herald, device)


@pytest.mark.parametrize("mode", H2_MODES)
def test_a_frame_that_cannot_be_parsed_closes_the_connection_after_the_answers_owed(herald, device, mode):
    """A push sent before the bad frame is still answered (and stored); then GOAWAY and close."""
    conn = RawH2(herald, mode)
    try:
        apns_id = new_apns_id()
        bad_settings = b"\x00\x00\x05\x04\x00\x00\x00\x00\x00" + b"\x00" * 5  # SETTINGS of 5 bytes
        conn.send(*conn.push_frames(1, device.device_token, apns_id), bad_settings)
        assert conn.read_until_closed(5) is not None, f"still open after a malformed SETTINGS frame: {conn.frames}"
        goaway = conn.goaway()
        assert goaway is not None and goaway.error_code == FRAME_SIZE_ERROR, conn.frames
        answers = [f for f in conn.frames if isinstance(f, HeadersFrame) and f.stream_id == 1]
        assert answers, f"the push taken before the error was not answered: {conn.frames}"
    finally:
        conn.close()
    assert apns_id in herald.listed_ids(device)
    assert_bystander_served(herald, device)


@pytest.mark.parametrize("mode", H2_MODES)
def test_bad_hpack_closes_the_connection(herald, device, mode):
    conn = RawH2(herald, mode)
    try:
        h = HeadersFrame(1, b"\xff\xff\xff\x0f")  # indexed field 2,097,278: far past both tables
        h.flags.add("END_HEADERS")
        h.flags.add("END_STREAM")
        conn.send(h)
        assert conn.read_until_closed(5) is not None, f"still open after bad HPACK: {conn.frames}"
        goaway = conn.goaway()
        assert goaway is not None and goaway.error_code == COMPRESSION_ERROR, conn.frames
    finally:
        conn.close()
    assert_bystander_served(herald, device)


@pytest.mark.parametrize("mode", ["h2c", "tls-alpn-h2"])
def test_a_refused_header_block_resets_only_its_stream(herald, device, mode):
    """An uppercase header name is a stream error (RST_STREAM PROTOCOL_ERROR): the connection and its
    other requests go on."""
    conn = RawH2(herald, mode)
    try:
        h = HeadersFrame(1, conn.encoder.encode(conn.request_headers(device.device_token, extra=[("X-Upper", "1")])))
        h.flags.add("END_HEADERS")
        conn.send(h)
        apns_id = new_apns_id()
        conn.send(*conn.push_frames(3, device.device_token, apns_id))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(
                isinstance(f, HeadersFrame) and f.stream_id == 3 for f in conn.frames):
            assert conn.read(0.2), f"connection closed: {conn.frames}"
        resets = [f for f in conn.frames if isinstance(f, RstStreamFrame) and f.stream_id == 1]
        assert resets and resets[0].error_code == PROTOCOL_ERROR, conn.frames
        assert conn.goaway() is None, conn.frames
        assert any(isinstance(f, HeadersFrame) and f.stream_id == 3 for f in conn.frames), conn.frames
    finally:
        conn.close()
    assert apns_id in herald.listed_ids(device)


def http1_flood(env, mode: str, first: bytes, repeat: bytes, seconds: float = 8) -> tuple[int, bytes, float | None]:
    """Sends `first`, then `repeat` over and over; returns bytes sent, what the server answered, and
    when it closed the connection (None: still open)."""
    sock = open_socket(env, mode)
    sent, answer, start = 0, b"", time.monotonic()
    try:
        sock.sendall(first)
        sent += len(first)
        chunk = repeat * max(1, 16_384 // len(repeat))
        sock.settimeout(0.5)
        while time.monotonic() - start < seconds:
            try:
                sock.sendall(chunk)
                sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout, OSError):
                break
        while time.monotonic() - start < seconds + 5:
            try:
                sock.settimeout(0.5)
                data = sock.recv(1 << 16)
            except socket.timeout:
                continue
            except (ConnectionResetError, ssl.SSLError, OSError):
                data = b""
            if not data:
                return sent, answer, time.monotonic() - start
            answer += data
        return sent, answer, None
    finally:
        sock.close()


@pytest.mark.parametrize("mode", H1_MODES)
def test_http1_request_line_flood_gets_400_and_a_closed_connection(herald, device, mode):
    sent, answer, closed_after = http1_flood(herald, mode, b"POST /3/device/", b"a" * 1024)
    assert closed_after is not None, f"still open after a request line of {sent / 1e6:.1f} MB"
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert sent < 32 << 20, f"the server read {sent / 1e6:.0f} MB before closing"
    assert_bystander_served(herald, device, "tls" if mode.startswith("tls") else "h2c")


@pytest.mark.parametrize("mode", H1_MODES)
def test_http1_header_flood_gets_400_and_a_closed_connection(herald, device, mode):
    first = f"POST /3/device/{device.device_token} HTTP/1.1\r\nHost: herald\r\n".encode()
    sent, answer, closed_after = http1_flood(herald, mode, first, b"x-padding: " + b"b" * 100 + b"\r\n")
    assert closed_after is not None, f"still open after {sent / 1e6:.1f} MB of headers"
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert sent < 32 << 20, f"the server read {sent / 1e6:.0f} MB before closing"
    assert_bystander_served(herald, device)


@pytest.mark.parametrize("path,method", [("/v1/me/preferences", "PUT"), ("/v1/admin/users", "POST")])
def test_a_json_api_body_over_the_limit_is_refused_and_changes_nothing(herald, device, path, method):
    """2 MB where the API takes 64 KiB: `413 payload_too_large` as JSON, nothing stored, the server serves on."""
    token = herald.admin_token if path.startswith("/v1/admin") else device.user_token
    before = herald.api("GET", "/v1/me/preferences", token=device.user_token).json()
    users_before = len(herald.admin("GET", "/v1/admin/users")["users"])
    body = b'{"name":"' + b"a" * (2 << 20) + b'"}'
    r = herald.api(method, path, body=body, token=token)
    assert r.status == 413, r
    assert r.json()["error"]["code"] == "payload_too_large", r
    assert herald.api("GET", "/v1/me/preferences", token=device.user_token).json() == before
    assert len(herald.admin("GET", "/v1/admin/users")["users"]) == users_before
    assert herald.api("GET", "/healthz").status == 200
