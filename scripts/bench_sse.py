"""scripts/bench's live session: an SSE reader of the demo device's stream that counts and checks every
`event: notification` (scripts/bench-tools.py sse)."""

import calendar
import itertools
import json
import operator
import os
import re
import signal
import socket
import time
import urllib.parse


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


