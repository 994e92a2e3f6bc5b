"""`herald-h2-floor`, the benchmarks' floor of the push path: Herald's APNs listener answering every
request at once as an accepted push (scripts/bench measures what a push costs above it). Its answers
must be the ones a provider gets from `herald serve` for an accepted push, or the floor measures
different frames."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

from herald_support import H2Client, herald_bin

UUID_SHAPE = 36


def floor_bin() -> str:
    return str(Path(herald_bin()).parent / "herald-h2-floor")


def test_the_floor_answers_every_request_as_an_accepted_push_and_stops_on_sigterm():
    floor = subprocess.Popen([floor_bin(), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ports = json.loads(floor.stdout.readline())
        assert ports["tls"] is None
        h2 = H2Client(f"http://127.0.0.1:{ports['cleartext']}")
        given = str(uuid.uuid4())
        answers = h2.wait([
            h2.start_request("/3/device/" + "ab" * 32, [("apns-topic", "x"), ("apns-id", given)], b'{"aps":{}}'),
            h2.start_request("/3/device/" + "cd" * 32, [("apns-topic", "x")], b'{"aps":{}}'),
        ])
        for answer in answers:
            assert answer.status == 200, answer
            # One HEADERS frame with END_STREAM, as `herald serve` answers an accepted push.
            assert answer.frames == [("HEADERS", 0, True)], answer.frames
            assert len(answer.header("apns-unique-id") or "") == UUID_SHAPE
        assert answers[0].header("apns-id") == given
        generated = answers[1].header("apns-id") or ""
        assert len(generated) == UUID_SHAPE and generated != given
        h2.close()
    finally:
        floor.terminate()
        assert floor.wait(timeout=20) == 0, floor.stderr.read()


def test_the_durable_floor_answers_once_each_request_is_written_and_fails_clearly_without_its_file(tmp_path):
    """`--durable FILE`: each answer follows a group commit that wrote `--record-bytes` for the request to FILE
    (a ring, written in full at the start) and synced it."""
    log = tmp_path / "floor.log"
    floor = subprocess.Popen([floor_bin(), "--port", "0", "--durable", str(log), "--record-bytes", "100"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ports = json.loads(floor.stdout.readline())
        assert log.stat().st_size == 32 << 20 and log.read_bytes()[:1] == b"\0"
        h2 = H2Client(f"http://127.0.0.1:{ports['cleartext']}")
        answers = h2.wait([h2.start_request("/3/device/" + "ab" * 32, [("apns-topic", "x")], b'{"aps":{}}')
                           for _ in range(3)])
        assert [a.status for a in answers] == [200, 200, 200]
        # Answered, so written: 3 records of 100 bytes from the start of the ring, nothing past them.
        head = log.read_bytes()[:400]
        assert head[:300] == b"*" * 300 and head[300:] == b"\0" * 100
        h2.close()
    finally:
        floor.terminate()
        assert floor.wait(timeout=20) == 0, floor.stderr.read()
    refused = subprocess.run([floor_bin(), "--port", "0", "--durable", str(tmp_path / "no-such-dir" / "log")],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and "open" in refused.stderr and "No such file or directory" in refused.stderr
