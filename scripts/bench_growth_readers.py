#!/usr/bin/env python3
"""Live SSE sessions for scripts/bench-growth: one process, asyncio, any number of sessions (one per
device), each counting the distinct notifications it receives, so the growth script can check every
session against the store.

  bench_growth_readers.py API_URL SESSIONS_JSON STATE_FILE MAX_SECONDS

SESSIONS_JSON: [[device_id, user_token], ...]. Each session is a real `GET /v1/devices/{id}/stream`
(HTTP/1.1, chunked) that got its `: connected`; at most 200 connect at once. STATE_FILE (JSON, rewritten
every 0.3 s and at the end) has: connected, failed, errors (the first few), distinct (all sessions),
events, duplicates, out_of_order, other_events, bad_events and per_device {device_id: distinct}; "final"
once SIGTERM/SIGINT or MAX_SECONDS ended it. Reads a block of whole events at once with the bench's
event pattern (scripts/bench_sse.py), so it costs the machine little per event.
"""

import asyncio
import json
import os
import signal
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_sse as tools  # noqa: E402  (scripts/bench's SSE reader: its event pattern and chunk decoder)


class Session:
    __slots__ = ("device_id", "token", "ids", "events", "duplicates", "out_of_order", "other", "bad", "last_cursor",
                 "connected", "writer")

    def __init__(self, device_id, token):
        self.device_id, self.token = device_id, token
        self.ids = set()
        self.events = self.duplicates = self.out_of_order = self.other = self.bad = 0
        self.last_cursor = None
        self.connected = False
        self.writer = None

    def block(self, block):
        """Whole events (blank-line separated, LF only): notification events counted by id and cursor."""
        found = tools.NOTIFICATION_EVENT.findall(block)
        kinds = block.count(b"event: ")
        notifications = block.count(b"event: notification\n")
        self.other += kinds - notifications
        self.bad += notifications - len(found)  # a notification event the pattern could not read
        for cursor, _data, nid, _row in found:
            self.events += 1
            c = int(cursor)
            if self.last_cursor is not None and c <= self.last_cursor:
                self.out_of_order += 1
            self.last_cursor = c
            if nid in self.ids:
                self.duplicates += 1
            else:
                self.ids.add(nid)


async def run_session(s, host, port, path_base, sem, state):
    try:
        async with sem:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 30)
            s.writer = writer
            writer.write((f"GET {path_base}/v1/devices/{urllib.parse.quote(s.device_id)}/stream HTTP/1.1\r\n"
                          f"Host: {host}:{port}\r\nAuthorization: Bearer {s.token}\r\nAccept: text/event-stream\r\n"
                          "Cache-Control: no-cache\r\n\r\n").encode())
            await writer.drain()
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = await asyncio.wait_for(reader.read(65536), 30)
                if not chunk:
                    raise ConnectionError("closed before the response headers")
                head += chunk
            head, rest = head.split(b"\r\n\r\n", 1)
            status_line = head.split(b"\r\n", 1)[0]
            if b" 200 " not in status_line + b" ":
                raise ConnectionError(f"{status_line.decode('latin-1')}: {rest[:200]!r}")
            chunked = b"transfer-encoding: chunked" in head.lower()
        decoder = tools.ChunkedDecoder() if chunked else None
        pending = b""
        data = rest
        while True:
            if data:
                data = decoder.feed(data) if decoder else data
                pending = pending + data if pending else data
                if b"\r" in pending:
                    pending = pending.replace(b"\r\n", b"\n")
                end = pending.rfind(b"\n\n")
                if end >= 0:
                    block, pending = pending[:end + 1], pending[end + 2:]
                    if not s.connected and b": connected" in block:
                        s.connected = True
                        state["connected"] += 1
                    s.block(block)
                if decoder and decoder.ended:
                    break
            data = await reader.read(1 << 20)
            if not data:
                break
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 -- reported through the state file
        state["failed"] += 1
        if len(state["errors"]) < 5:
            state["errors"].append(f"{s.device_id}: {type(exc).__name__}: {exc}")
    finally:
        if s.connected:
            state["closed"] += 1


def write_state(path, sessions, state, final=False):
    data = dict(state)
    data.update(
        sessions=len(sessions),
        distinct=sum(len(s.ids) for s in sessions),
        events=sum(s.events for s in sessions),
        duplicates=sum(s.duplicates for s in sessions),
        out_of_order=sum(s.out_of_order for s in sessions),
        other_events=sum(s.other for s in sessions),
        bad_events=sum(s.bad for s in sessions),
        per_device={s.device_id: len(s.ids) for s in sessions},
        final=final,
    )
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


async def main(api_url, sessions_path, state_path, max_seconds):
    with open(sessions_path) as f:
        sessions = [Session(d, t) for d, t in json.load(f)]
    url = urllib.parse.urlsplit(api_url)
    state = {"connected": 0, "failed": 0, "closed": 0, "errors": [], "started_at": time.time()}
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    sem = asyncio.Semaphore(200)
    tasks = [asyncio.create_task(run_session(s, url.hostname, url.port or 80, url.path.rstrip("/"), sem, state))
             for s in sessions]
    deadline = time.monotonic() + float(max_seconds)
    while not stop.is_set() and time.monotonic() < deadline:
        write_state(state_path, sessions, state)
        try:
            await asyncio.wait_for(stop.wait(), 0.3)
        except asyncio.TimeoutError:
            pass
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for s in sessions:
        if s.writer is not None:
            s.writer.close()
    write_state(state_path, sessions, state, final=True)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(*sys.argv[1:]))
