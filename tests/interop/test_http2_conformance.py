"""HTTP/2 conformance of the APNs listeners, written from RFC 9113 (HTTP/2) and RFC 7541 (HPACK).

Each case sends raw frames (hyperframe / hpack, or bytes built by hand where a frame must be
malformed) on a fresh connection and checks the answer the RFC requires: a connection error is a
GOAWAY with the section's error code and a closed connection; a stream error is an RST_STREAM with
its code on that stream, and the connection serves the next request (a push on a new stream gets
200). After every case, a provider on another connection that was open all along (the bystander)
pushes and gets 200, and its push is listed.

The cases run on h2c; those where TLS changes something (the preface, or a connection error that
must end the TLS session too) run on the TLS listener with ALPN `h2` as well."""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass
from typing import Callable

import pytest
from hyperframe.frame import Frame, GoAwayFrame, HeadersFrame, RstStreamFrame, SettingsFrame

from herald_support import H2Client, alert_payload, new_apns_id
from test_hostile_input import RawH2, open_socket

# RFC 9113 §7
NO_ERROR, PROTOCOL_ERROR, INTERNAL_ERROR, FLOW_CONTROL_ERROR = 0x0, 0x1, 0x2, 0x3
SETTINGS_TIMEOUT, STREAM_CLOSED, FRAME_SIZE_ERROR, REFUSED_STREAM = 0x4, 0x5, 0x6, 0x7
CANCEL, COMPRESSION_ERROR, ENHANCE_YOUR_CALM = 0x8, 0x9, 0xB

# Frame types (RFC 9113 §6)
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
MAX_WINDOW = 2**31 - 1


def raw_frame(kind: int, flags: int, stream_id: int, payload: bytes) -> bytes:
    """A frame exactly as given, whatever its length or stream: for frames hyperframe won't build."""
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + struct.pack(">I", stream_id) + payload


def hpack_int(value: int, prefix_bits: int, first_byte: int) -> bytes:
    """An HPACK integer (RFC 7541 §5.1) whose first byte carries `first_byte`'s high bits."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first_byte | value])
    out, value = [first_byte | limit], value - limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def table_size_update(size: int) -> bytes:
    return hpack_int(size, 5, 0x20)  # RFC 7541 §6.3: 001xxxxx


@dataclass
class Connection:
    """A test's connection, with the helpers the cases use to build their frames."""
    raw: RawH2
    token: str

    def block(self, extra=(), *, drop=(), order=None) -> bytes:
        headers = [h for h in self.raw.request_headers(self.token, extra=extra) if h[0] not in drop]
        if order:
            headers = order(headers)
        return self.raw.encoder.encode(headers)

    def headers(self, sid: int, *, end_stream: bool = True, block: bytes | None = None) -> bytes:
        flags = END_HEADERS | (END_STREAM if end_stream else 0)
        return raw_frame(HEADERS, flags, sid, self.block() if block is None else block)

    def body(self, sid: int, payload: bytes = b'{"aps":{"alert":"hi"}}', end_stream: bool = True) -> bytes:
        return raw_frame(DATA, END_STREAM if end_stream else 0, sid, payload)


def settings(*pairs: tuple[int, int]) -> bytes:
    return raw_frame(SETTINGS, 0, 0, b"".join(struct.pack(">HI", k, v) for k, v in pairs))


def window_update(sid: int, increment: int) -> bytes:
    return raw_frame(WINDOW_UPDATE, 0, sid, struct.pack(">I", increment))


# -- the cases: (name, frames to send after the preface and an empty SETTINGS, expected)
# expected: ("goaway", code) — connection error; ("rst", stream, code) — stream error, connection goes on;
# ("served", None) — the frame is to be ignored and the connection serves the next request.

Case = tuple[str, Callable[[Connection], bytes], tuple]

CONNECTION_ERRORS: list[Case] = [
    # §4.2: a frame over SETTINGS_MAX_FRAME_SIZE (16,384 by default) is a FRAME_SIZE_ERROR.
    ("data-over-max-frame-size", lambda c: c.headers(1, end_stream=False) + raw_frame(DATA, 0, 1, b"x" * 16_385),
     ("goaway", FRAME_SIZE_ERROR)),
    ("headers-over-max-frame-size", lambda c: raw_frame(HEADERS, END_HEADERS, 1, b"\x00" * 16_385),
     ("goaway", FRAME_SIZE_ERROR)),
    # §6.4, §6.5, §6.7, §6.9: wrong lengths of the fixed-size frames.
    ("rst-stream-of-3-bytes", lambda c: c.headers(1, end_stream=False) + raw_frame(RST_STREAM, 0, 1, b"\x00" * 3),
     ("goaway", FRAME_SIZE_ERROR)),
    ("rst-stream-of-5-bytes", lambda c: c.headers(1, end_stream=False) + raw_frame(RST_STREAM, 0, 1, b"\x00" * 5),
     ("goaway", FRAME_SIZE_ERROR)),
    ("settings-of-7-bytes", lambda c: raw_frame(SETTINGS, 0, 0, b"\x00" * 7), ("goaway", FRAME_SIZE_ERROR)),
    ("settings-ack-with-payload", lambda c: raw_frame(SETTINGS, ACK, 0, b"\x00" * 6), ("goaway", FRAME_SIZE_ERROR)),
    ("ping-of-7-bytes", lambda c: raw_frame(PING, 0, 0, b"\x00" * 7), ("goaway", FRAME_SIZE_ERROR)),
    ("ping-of-9-bytes", lambda c: raw_frame(PING, 0, 0, b"\x00" * 9), ("goaway", FRAME_SIZE_ERROR)),
    ("window-update-of-3-bytes", lambda c: raw_frame(WINDOW_UPDATE, 0, 0, b"\x00\x00\x01"),
     ("goaway", FRAME_SIZE_ERROR)),
    ("window-update-of-5-bytes", lambda c: raw_frame(WINDOW_UPDATE, 0, 0, b"\x00\x00\x00\x01\x00"),
     ("goaway", FRAME_SIZE_ERROR)),
    # §6.1, §6.2: padding that is as long as the payload or longer.
    ("data-padding-too-long",
     lambda c: c.headers(1, end_stream=False) + raw_frame(DATA, PADDED | END_STREAM, 1, b"\x05abcd"),
     ("goaway", PROTOCOL_ERROR)),
    ("headers-padding-too-long", lambda c: raw_frame(HEADERS, PADDED | END_HEADERS, 1, b"\x40" + c.block()[:10]),
     ("goaway", PROTOCOL_ERROR)),
    # Frames of stream 0 that must be on a stream, and frames of a stream that must be on stream 0.
    ("data-on-stream-0", lambda c: raw_frame(DATA, 0, 0, b"x"), ("goaway", PROTOCOL_ERROR)),
    ("headers-on-stream-0", lambda c: raw_frame(HEADERS, END_HEADERS | END_STREAM, 0, c.block()),
     ("goaway", PROTOCOL_ERROR)),
    ("priority-on-stream-0", lambda c: raw_frame(PRIORITY, 0, 0, b"\x00\x00\x00\x01\x10"),
     ("goaway", PROTOCOL_ERROR)),
    ("rst-stream-on-stream-0", lambda c: raw_frame(RST_STREAM, 0, 0, b"\x00\x00\x00\x08"),
     ("goaway", PROTOCOL_ERROR)),
    ("continuation-on-stream-0", lambda c: raw_frame(CONTINUATION, END_HEADERS, 0, c.block()),
     ("goaway", PROTOCOL_ERROR)),
    ("settings-on-stream-1", lambda c: raw_frame(SETTINGS, 0, 1, b""), ("goaway", PROTOCOL_ERROR)),
    ("ping-on-stream-1", lambda c: raw_frame(PING, 0, 1, b"\x00" * 8), ("goaway", PROTOCOL_ERROR)),
    ("goaway-on-stream-1", lambda c: raw_frame(GOAWAY, 0, 1, b"\x00" * 8), ("goaway", PROTOCOL_ERROR)),
    # §5.1 idle: any frame but HEADERS or PRIORITY on an idle stream is a connection error.
    ("data-on-idle-stream", lambda c: c.body(1), ("goaway", PROTOCOL_ERROR)),
    ("rst-stream-on-idle-stream", lambda c: raw_frame(RST_STREAM, 0, 1, b"\x00\x00\x00\x08"),
     ("goaway", PROTOCOL_ERROR)),
    ("window-update-on-idle-stream", lambda c: window_update(1, 1000), ("goaway", PROTOCOL_ERROR)),
    # §5.1.1: client streams are odd and increase.
    ("even-stream-id", lambda c: c.headers(2), ("goaway", PROTOCOL_ERROR)),
    ("decreasing-stream-id", lambda c: c.headers(5) + c.headers(3), ("goaway", PROTOCOL_ERROR)),
    # §6.10: a header block is HEADERS then CONTINUATION frames of the same stream, nothing between.
    ("continuation-without-headers", lambda c: raw_frame(CONTINUATION, END_HEADERS, 1, c.block()),
     ("goaway", PROTOCOL_ERROR)),
    ("continuation-of-another-stream",
     lambda c: raw_frame(HEADERS, END_STREAM, 1, c.block()[:5]) + raw_frame(CONTINUATION, END_HEADERS, 3, b""),
     ("goaway", PROTOCOL_ERROR)),
    ("ping-inside-a-header-block",
     lambda c: raw_frame(HEADERS, END_STREAM, 1, c.block()[:5]) + raw_frame(PING, 0, 0, b"\x00" * 8),
     ("goaway", PROTOCOL_ERROR)),
    # §6.9.1: a window past 2^31-1 is a FLOW_CONTROL_ERROR; on the connection, a connection error.
    ("connection-window-overflow", lambda c: window_update(0, MAX_WINDOW), ("goaway", FLOW_CONTROL_ERROR)),
    ("connection-window-overflow-in-two-steps",
     lambda c: window_update(0, 2**30) + window_update(0, 2**30), ("goaway", FLOW_CONTROL_ERROR)),
    # §6.9: a WINDOW_UPDATE of 0 on the connection is a PROTOCOL_ERROR.
    ("connection-window-update-of-0", lambda c: window_update(0, 0), ("goaway", PROTOCOL_ERROR)),
    # §6.9.2: a new SETTINGS_INITIAL_WINDOW_SIZE that takes an open stream's window past 2^31-1.
    ("initial-window-size-overflows-an-open-stream",
     lambda c: c.headers(1, end_stream=False) + window_update(1, MAX_WINDOW - 65_535)
     + settings((0x4, MAX_WINDOW)), ("goaway", FLOW_CONTROL_ERROR)),
    # RFC 7541 §2.3.3 / §6.1: an index past both tables; 0 is not an index.
    ("hpack-index-out-of-range", lambda c: raw_frame(HEADERS, END_HEADERS | END_STREAM, 1, hpack_int(5000, 7, 0x80)),
     ("goaway", COMPRESSION_ERROR)),
    ("hpack-index-0", lambda c: raw_frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\x80"),
     ("goaway", COMPRESSION_ERROR)),
    ("hpack-literal-name-index-out-of-range",
     lambda c: raw_frame(HEADERS, END_HEADERS | END_STREAM, 1, hpack_int(400, 6, 0x40) + b"\x01a"),
     ("goaway", COMPRESSION_ERROR)),
    # RFC 7541 §4.2 / §6.3: a dynamic table size update above SETTINGS_HEADER_TABLE_SIZE (4,096).
    ("hpack-table-size-update-over-the-limit",
     lambda c: raw_frame(HEADERS, END_HEADERS | END_STREAM, 1, table_size_update(4097) + c.block()),
     ("goaway", COMPRESSION_ERROR)),
    # RFC 7541 §4.2: a size update must come at the start of the block, not after a field.
    ("hpack-table-size-update-after-a-field",
     lambda c: raw_frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\x83" + table_size_update(0) + c.block()),
     ("goaway", COMPRESSION_ERROR)),
    # RFC 7541 §5.2: a string longer than its frame, and Huffman padding that is not EOS bits.
    ("hpack-string-past-the-block",
     lambda c: raw_frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\x40\x7f\x20abc"), ("goaway", COMPRESSION_ERROR)),
    ("hpack-huffman-bad-padding",
     lambda c: raw_frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\x40\x81\x00\x01a"), ("goaway", COMPRESSION_ERROR)),
    # §6.5.2: settings values out of range.
    ("settings-enable-push-2", lambda c: settings((0x2, 2)), ("goaway", PROTOCOL_ERROR)),
    ("settings-initial-window-size-over-2^31-1", lambda c: settings((0x4, 2**31)), ("goaway", FLOW_CONTROL_ERROR)),
    ("settings-max-frame-size-below-16384", lambda c: settings((0x5, 16_383)), ("goaway", PROTOCOL_ERROR)),
    ("settings-max-frame-size-above-2^24-1", lambda c: settings((0x5, 2**24)), ("goaway", PROTOCOL_ERROR)),
    # §8.4: a client cannot push.
    ("push-promise-from-a-client",
     lambda c: c.headers(1, end_stream=False) + raw_frame(PUSH_PROMISE, END_HEADERS, 1, struct.pack(">I", 2) + c.block()),
     ("goaway", PROTOCOL_ERROR)),
]

STREAM_ERRORS: list[Case] = [
    # §6.3: a PRIORITY frame of the wrong length is a stream error. NIOHTTP2 makes it a connection
    # error with the same code, which §5.4 allows ("MAY choose to treat a stream error as a connection error").
    ("priority-of-4-bytes", lambda c: raw_frame(PRIORITY, 0, 1, b"\x00" * 4), ("rst-or-goaway", 1, FRAME_SIZE_ERROR)),
    # RFC 7540 §5.3.1 (kept by RFC 9113 §5.3.1): a stream cannot depend on itself (NIOHTTP2: connection error).
    ("priority-on-itself", lambda c: raw_frame(PRIORITY, 0, 1, b"\x00\x00\x00\x01\x10"),
     ("rst-or-goaway", 1, PROTOCOL_ERROR)),
    ("headers-depending-on-itself",
     lambda c: raw_frame(HEADERS, END_HEADERS | END_STREAM | PRIORITY_FLAG, 1, b"\x00\x00\x00\x01\x10" + c.block()),
     ("rst-or-goaway", 1, PROTOCOL_ERROR)),
    # §6.9: a WINDOW_UPDATE of 0 on a stream is a stream error; past 2^31-1 on a stream too.
    ("stream-window-update-of-0", lambda c: c.headers(1, end_stream=False) + window_update(1, 0),
     ("rst", 1, PROTOCOL_ERROR)),
    ("stream-window-overflow", lambda c: c.headers(1, end_stream=False) + window_update(1, MAX_WINDOW),
     ("rst", 1, FLOW_CONTROL_ERROR)),
    # §5.1 half-closed (remote): DATA after the client's END_STREAM is a STREAM_CLOSED stream error.
    ("data-on-a-half-closed-stream", lambda c: c.headers(1, end_stream=True) + c.body(1), ("rst", 1, STREAM_CLOSED)),
    # §8.2.1, §8.2.2, §8.3: malformed requests are stream errors of type PROTOCOL_ERROR.
    ("uppercase-header-name", lambda c: c.headers(1, block=c.block([("Apns-Priority", "10")])),
     ("rst", 1, PROTOCOL_ERROR)),
    ("connection-header", lambda c: c.headers(1, block=c.block([("connection", "keep-alive")])),
     ("rst", 1, PROTOCOL_ERROR)),
    ("keep-alive-header", lambda c: c.headers(1, block=c.block([("keep-alive", "timeout=5")])),
     ("rst", 1, PROTOCOL_ERROR)),
    ("transfer-encoding-header", lambda c: c.headers(1, block=c.block([("transfer-encoding", "chunked")])),
     ("rst", 1, PROTOCOL_ERROR)),
    ("upgrade-header", lambda c: c.headers(1, block=c.block([("upgrade", "h2c")])), ("rst", 1, PROTOCOL_ERROR)),
    ("te-other-than-trailers", lambda c: c.headers(1, block=c.block([("te", "gzip")])), ("rst", 1, PROTOCOL_ERROR)),
    ("pseudo-header-after-a-regular-one",
     lambda c: c.headers(1, block=c.block(order=lambda h: [h[-1]] + h[:-1])), ("rst", 1, PROTOCOL_ERROR)),
    ("unknown-pseudo-header", lambda c: c.headers(1, block=c.block(order=lambda h: [(":color", "red")] + h)),
     ("rst", 1, PROTOCOL_ERROR)),
    ("response-pseudo-header-in-a-request",
     lambda c: c.headers(1, block=c.block(order=lambda h: [(":status", "200")] + h)), ("rst", 1, PROTOCOL_ERROR)),
    ("duplicate-path", lambda c: c.headers(1, block=c.block(order=lambda h: [(":path", "/3/device/aa")] + h)),
     ("rst", 1, PROTOCOL_ERROR)),
    ("missing-method", lambda c: c.headers(1, block=c.block(drop=(":method",))), ("rst", 1, PROTOCOL_ERROR)),
    ("missing-scheme", lambda c: c.headers(1, block=c.block(drop=(":scheme",))), ("rst", 1, PROTOCOL_ERROR)),
    ("missing-path", lambda c: c.headers(1, block=c.block(drop=(":path",))), ("rst", 1, PROTOCOL_ERROR)),
    ("empty-path", lambda c: c.headers(1, block=c.block(order=lambda h: [(":path", "") if n == ":path" else (n, v)
                                                                          for n, v in h])),
     ("rst", 1, PROTOCOL_ERROR)),
    # §8.1.1: content-length that the DATA frames contradict.
    ("content-length-mismatch",
     lambda c: c.headers(1, end_stream=False, block=c.block([("content-length", "5")])) + c.body(1, b"123"),
     ("rst", 1, PROTOCOL_ERROR)),
]

IGNORED: list[Case] = [
    # §4.1 / §5.5: frames of an unknown type are ignored, also inside nothing.
    ("unknown-frame-type", lambda c: raw_frame(0xFA, 0xFF, 0, b"whatever"), ("served", None)),
    ("unknown-frame-type-on-a-stream", lambda c: raw_frame(0xFA, 0, 7, b"whatever"), ("served", None)),
    # §6.5.2: unknown settings are ignored.
    ("unknown-setting", lambda c: settings((0xF0F0, 12345)), ("served", None)),
    # §6.3: PRIORITY on an idle stream is allowed (and deprecated); unknown flags are ignored.
    ("priority-on-an-idle-stream", lambda c: raw_frame(PRIORITY, 0, 9, b"\x00\x00\x00\x00\x10"), ("served", None)),
    ("ping-with-unknown-flags", lambda c: raw_frame(PING, 0xF0, 0, b"\x00" * 8), ("served", None)),
    # §6.9: WINDOW_UPDATE up to exactly 2^31-1 is allowed.
    ("connection-window-to-exactly-2^31-1", lambda c: window_update(0, MAX_WINDOW - 65_535), ("served", None)),
    # RFC 7541 §4.2: size updates at the start of a block, within the limit, are allowed (two of them too).
    ("hpack-table-size-updates-at-the-start",
     lambda c: raw_frame(HEADERS, END_HEADERS, 1, table_size_update(0) + table_size_update(4096)
                         + c.raw.encoder.encode(c.raw.request_headers(c.token))) + c.body(1), ("served", 1)),
]


@pytest.fixture(scope="module")
def bystander(herald):
    """A provider's connection opened before the cases and kept open through all of them."""
    device = herald.new_device()
    client = H2Client(herald.apns_url)
    yield client, device
    client.close()


def bystander_pushes(herald, bystander) -> None:
    client, device = bystander
    apns_id = new_apns_id()
    st = client.push(device.device_token, herald.headers(apns_id=apns_id), alert_payload("bystander"))
    assert st.status == 200, st
    assert apns_id in herald.listed_ids(device)


def answered(raw: RawH2, sid: int) -> HeadersFrame | None:
    return next((f for f in raw.frames if isinstance(f, HeadersFrame) and f.stream_id == sid), None)


def read_until(raw: RawH2, done: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not done():
        if not raw.read(0.1):
            return


def check_served(herald, raw: RawH2, device, sid: int) -> None:
    """The connection takes one more push, on stream `sid`, and answers it 200."""
    apns_id = new_apns_id()
    raw.send(*raw.push_frames(sid, device.device_token, apns_id))
    read_until(raw, lambda: answered(raw, sid) is not None, 10)
    assert raw.goaway() is None, f"GOAWAY where the connection should go on: {raw.frames}"
    head = answered(raw, sid)
    assert head is not None, f"stream {sid} not answered: {raw.frames}"
    status = dict(raw_decoder(raw).decode(head.data)).get(":status")
    assert status == "200", f"stream {sid}: {status}"


def raw_decoder(raw: RawH2):
    # The server's answers are decoded in order by one decoder per connection (its dynamic table).
    if not hasattr(raw, "decoder"):
        from hpack import Decoder
        raw.decoder = Decoder()
    return raw.decoder


def run_case(herald, device, mode: str, build: Callable[[Connection], bytes], expected: tuple) -> RawH2:
    raw = RawH2(herald, mode)
    conn = Connection(raw, device.device_token)
    raw.send(build(conn))
    kind = expected[0]
    if kind == "goaway":
        closed = raw.read_until_closed(5)
        goaway = raw.goaway()
        assert goaway is not None, f"no GOAWAY (closed: {closed is not None}): {raw.frames}"
        assert goaway.error_code == expected[1], f"GOAWAY code {goaway.error_code:#x}, expected {expected[1]:#x}"
        assert closed is not None, f"connection still open 5 s after GOAWAY: {raw.frames}"
    elif kind == "rst-or-goaway" and raw.read_until_closed(1) is not None:
        goaway = raw.goaway()
        assert goaway is not None and goaway.error_code == expected[2], f"closed without GOAWAY({expected[2]:#x}): {raw.frames}"
    elif kind in ("rst", "rst-or-goaway"):
        sid, code = expected[1], expected[2]
        read_until(raw, lambda: any(isinstance(f, RstStreamFrame) and f.stream_id == sid for f in raw.frames), 5)
        reset = next((f for f in raw.frames if isinstance(f, RstStreamFrame) and f.stream_id == sid), None)
        assert reset is not None, f"no RST_STREAM on stream {sid}: {raw.frames}"
        assert reset.error_code == code, f"RST_STREAM code {reset.error_code:#x}, expected {code:#x}"
        # Answers of the other streams decode in order only if every HEADERS is decoded: decode those first.
        for f in raw.frames:
            if isinstance(f, HeadersFrame) and f.stream_id != 101:
                raw_decoder(raw).decode(f.data)
        check_served(herald, raw, device, 101)
    else:
        if expected[1] is not None:
            read_until(raw, lambda: answered(raw, expected[1]) is not None, 5)
            head = answered(raw, expected[1])
            assert head is not None, f"stream {expected[1]} not answered: {raw.frames}"
            assert dict(raw_decoder(raw).decode(head.data)).get(":status") == "200"
        check_served(herald, raw, device, 101)
    return raw


ALL = CONNECTION_ERRORS + STREAM_ERRORS + IGNORED
# Where TLS matters: a connection error must end the TLS session as it ends h2c's, and a stream
# error must leave it serving; one case of each kind of answer, on the TLS listener with ALPN h2.
TLS_CASES = {"data-over-max-frame-size", "settings-of-7-bytes", "data-on-idle-stream",
             "connection-window-overflow", "hpack-table-size-update-over-the-limit", "settings-enable-push-2",
             "push-promise-from-a-client", "stream-window-overflow", "uppercase-header-name",
             "connection-header", "unknown-frame-type"}


@pytest.mark.parametrize("name,build,expected", ALL, ids=[c[0] for c in ALL])
def test_h2c(herald, device, bystander, name, build, expected):
    raw = run_case(herald, device, "h2c", build, expected)
    raw.close()
    bystander_pushes(herald, bystander)


@pytest.mark.parametrize("name,build,expected", [c for c in ALL if c[0] in TLS_CASES],
                         ids=[c[0] for c in ALL if c[0] in TLS_CASES])
def test_tls(herald, device, bystander, name, build, expected):
    raw = run_case(herald, device, "tls-alpn-h2", build, expected)
    raw.close()
    bystander_pushes(herald, bystander)


def test_a_closed_stream_takes_no_more_data(herald, device, bystander):
    """§5.1 closed: DATA on a stream both sides ended is STREAM_CLOSED (a stream or connection error)."""
    raw = RawH2(herald, "h2c")
    try:
        raw.send(*raw.push_frames(1, device.device_token, new_apns_id()))
        read_until(raw, lambda: answered(raw, 1) is not None, 10)
        assert answered(raw, 1) is not None, raw.frames
        raw.send(raw_frame(DATA, END_STREAM, 1, b"late"))
        read_until(raw, lambda: any(isinstance(f, (RstStreamFrame, GoAwayFrame)) and f.stream_id in (0, 1)
                                    and not isinstance(f, HeadersFrame) for f in raw.frames), 5)
        errors = [f.error_code for f in raw.frames if isinstance(f, (RstStreamFrame, GoAwayFrame))]
        assert errors and errors[0] == STREAM_CLOSED, raw.frames
    finally:
        raw.close()
    bystander_pushes(herald, bystander)


@pytest.mark.parametrize("mode", ["h2c", "tls-alpn-h2"])
def test_a_bad_preface_closes_the_connection(herald, device, bystander, mode):
    """§3.4: a connection whose first bytes are not the preface is not HTTP/2. On h2c Herald reads it as
    HTTP/1.1 (its first bytes decide) and answers 400 with `connection: close`; on TLS with ALPN h2 it
    is a PROTOCOL_ERROR (GOAWAY, which §3.4 allows to be omitted). Either way the connection closes."""
    sock = open_socket(herald, mode)
    try:
        sock.sendall(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + SettingsFrame(0).serialize())
        sock.settimeout(5)
        answer, deadline = b"", time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                break
            answer += data
        else:
            pytest.fail(f"connection still open after a bad preface: {answer[:200]!r}")
        if mode == "h2c":
            assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
        elif answer:
            frame, length = Frame.parse_frame_header(memoryview(answer[:9]))
            frames = []
            while len(answer) >= 9:
                frame, length = Frame.parse_frame_header(memoryview(answer[:9]))
                frame.parse_body(memoryview(answer[9:9 + length]))
                frames.append(frame)
                answer = answer[9 + length:]
            goaways = [f for f in frames if isinstance(f, GoAwayFrame)]
            assert not goaways or goaways[0].error_code == PROTOCOL_ERROR, frames
    finally:
        sock.close()
    bystander_pushes(herald, bystander)


@pytest.mark.parametrize("mode", ["h2c", "tls-alpn-h2"])
def test_a_preface_not_followed_by_settings_is_a_protocol_error(herald, device, bystander, mode):
    """§3.4: the client preface is the magic followed by a SETTINGS frame; anything else first (here a
    PING) is a connection error PROTOCOL_ERROR: GOAWAY with that code, then the connection closes."""
    sock = open_socket(herald, mode)
    try:
        ping = raw_frame(0x6, 0, 0, b"\0" * 8)
        sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + ping)
        sock.settimeout(5)
        answer, deadline, closed = b"", time.monotonic() + 5, False
        while time.monotonic() < deadline:
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                closed = True
                break
            answer += data
        assert closed, f"connection still open after a preface without SETTINGS: {answer[:200]!r}"
        frames = []
        while len(answer) >= 9:
            frame, length = Frame.parse_frame_header(memoryview(answer[:9]))
            frame.parse_body(memoryview(answer[9:9 + length]))
            frames.append(frame)
            answer = answer[9 + length:]
        goaways = [f for f in frames if isinstance(f, GoAwayFrame)]
        assert goaways and goaways[0].error_code == PROTOCOL_ERROR, frames
    finally:
        sock.close()
    bystander_pushes(herald, bystander)


def test_more_streams_than_max_concurrent_streams_are_refused(herald, device, bystander):
    """§5.1.2: past SETTINGS_MAX_CONCURRENT_STREAMS (1000) a stream is refused: RST_STREAM with
    REFUSED_STREAM or PROTOCOL_ERROR (a stream error), and the connection serves on once streams end —
    or, as NIOHTTP2 does, GOAWAY(PROTOCOL_ERROR) and the connection closes (§5.4 allows a stream error
    to be treated as a connection error). Either way the bystander is served."""
    raw = RawH2(herald, "h2c")
    try:
        conn = Connection(raw, device.device_token)
        block = conn.block()
        # 1001 requests left open (no END_STREAM): the last one is over the limit.
        raw.send(b"".join(raw_frame(HEADERS, END_HEADERS, 1 + 2 * i, block if i == 0 else
                                    raw.encoder.encode(raw.request_headers(device.device_token)))
                          for i in range(1001)))
        over = 1 + 2 * 1000
        read_until(raw, lambda: any(isinstance(f, RstStreamFrame) and f.stream_id == over for f in raw.frames), 10)
        reset = next((f for f in raw.frames if isinstance(f, RstStreamFrame) and f.stream_id == over), None)
        if reset is None:
            # NIOHTTP2 makes it a connection error with the code (§5.4 allows that): GOAWAY and closed.
            assert raw.goaway() is not None and raw.goaway().error_code == PROTOCOL_ERROR, raw.frames[-5:]
            assert raw.read_until_closed(5) is not None
            return
        assert reset.error_code in (REFUSED_STREAM, PROTOCOL_ERROR), raw.frames[-5:]
        assert raw.goaway() is None, raw.goaway()
        # Reset the open ones; the connection takes a new request.
        raw.send(b"".join(raw_frame(RST_STREAM, 0, 1 + 2 * i, struct.pack(">I", CANCEL)) for i in range(1000)))
        for f in raw.frames:
            if isinstance(f, HeadersFrame):
                raw_decoder(raw).decode(f.data)
        check_served(herald, raw, device, over + 2)
    finally:
        raw.close()
    bystander_pushes(herald, bystander)
