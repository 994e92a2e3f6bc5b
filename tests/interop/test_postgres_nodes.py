"""Two Herald nodes on one PostgreSQL database (`herald serve --database postgres://…`), sharing a
data directory, as README's "Several nodes" section runs them: a push accepted by either node reaches
a live session on the other, in order, with no gap and no duplicate; a session resumes by cursor on
either node; a device token registered on one node is taken by the other; when one node is killed
with SIGKILL under load, every push it acknowledged is listed and reaches the session on the node that
survives; a service extension's push runs once while another node starts, and on the other node when
the node running it dies; one node leads the time-driven services (Focus, summaries, triggers), and
another takes over when it dies; and when PostgreSQL itself stops under load and starts again, the node refuses pushes with
500 meanwhile (never a 200 it cannot keep, never a wait without end) and takes them again after. The PostgreSQL server is Debian's, started in a temporary directory (`scripts/pg-temp`)."""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import HeraldEnv
from herald_support import REPO, REPORT, H2Client, HeraldServer, SSEClient, new_apns_id, postgres_url, wait_until


@pytest.fixture(scope="module")
def nodes(tmp_path_factory):
    data = tmp_path_factory.mktemp("nodes") / "data"
    url = postgres_url(data)
    first = HeraldServer(data, ["--database", url], name="node-a").start()
    servers = [first]
    try:
        a = HeraldEnv(first, first.demo())
        second = HeraldServer(data, ["--database", url], name="node-b").start()
        servers.append(second)
        demo = dict(a.demo)
        demo.update({key: second.runtime[key] for key in ("api_url", "apns_url", "apns_tls_url")})
        b = HeraldEnv(second, demo)
        yield a, b
    finally:
        for server in servers:
            if server.proc and server.proc.poll() is None:
                assert server.stop(timeout=15) == 0, server.log_tail()


def notification_ids(events) -> list[str]:
    return [json.loads(e.data)["id"] for e in events]


def test_a_push_on_either_node_reaches_a_session_on_the_other_in_order(nodes):
    a, b = nodes
    device = a.new_device()  # registered through node A
    to_a, to_b = H2Client(a.apns_url), H2Client(b.apns_url)
    sent: list[str] = []
    with SSEClient(b.api_url, device.device_id, device.user_token) as stream:
        stream.wait_connected()
        started = time.monotonic()
        for index in range(120):
            client, env = (to_a, a) if index % 2 == 0 else (to_b, b)
            apns_id = new_apns_id()
            result = client.push(device.device_token, env.headers(apns_id=apns_id),
                                 {"aps": {"alert": f"n{index}"}})
            assert result.status == 200, (index, result.status, result.data)
            sent.append(apns_id)
        events = stream.collect(120, timeout=30)
        elapsed = time.monotonic() - started
        cursors = [int(e.id) for e in events]
        assert notification_ids(events) == sent  # every push, in the order acknowledged, once
        assert cursors == sorted(cursors) and len(set(cursors)) == len(cursors)
        extra = [e for e in stream.drain(0.5) if e.event in ("notification", "removed")]
        assert extra == [], f"{len(extra)} events more than the pushes"
        resume_at = events[59].id
    REPORT.append(f"two PostgreSQL nodes: 120 pushes alternating between them reached a session on node B "
                  f"in order in {elapsed:.2f}s")
    # Resuming on node A from the cursor node B gave: the rest, nothing twice.
    more = [new_apns_id() for _ in range(10)]
    for apns_id in more:
        assert to_b.push(device.device_token, b.headers(apns_id=apns_id), {"aps": {"alert": "more"}}).status == 200
    with SSEClient(a.api_url, device.device_id, device.user_token, last_event_id=resume_at) as resumed:
        rest = resumed.collect(70, timeout=20)
        assert notification_ids(rest) == sent[60:] + more
    to_a.close()
    to_b.close()


def test_a_token_registered_on_one_node_is_taken_by_the_other(nodes):
    a, b = nodes
    user = b.new_user()
    device_id = b.admin("POST", "/v1/admin/devices", {"user_id": user[0], "name": "on B"}, expect=201)["device_id"]
    token = b.new_token(device_id, b.topic)
    to_a = H2Client(a.apns_url)
    started = time.monotonic()
    # At once: node A reads a token it does not know from the database before refusing it (its
    # registry hears of the registration through a signal some milliseconds later).
    first = to_a.push(token, a.headers(), {"aps": {"alert": "hi"}})
    assert first.status == 200, (first.status, first.data)
    lag = time.monotonic() - started
    # Unregistered on node A: node B refuses it as APNs does.
    b_client = H2Client(b.apns_url)
    a.unregister(token)
    wait_until(lambda: b_client.push(token, b.headers(), {"aps": {"alert": "hi"}}).status == 410, timeout=5,
               what="node B refuses the token unregistered on node A")
    REPORT.append(f"two PostgreSQL nodes: a token registered on one node was taken by the other at once "
                  f"(the first push answered 200 in {lag * 1000:.0f} ms)")
    to_a.close()
    b_client.close()


def read_through_counts(env) -> dict[str, float]:
    r = env.api("GET", "/metrics", token=env.admin_token)
    assert r.status == 200, r.status
    counts = {}
    for line in r.body.decode().splitlines():
        if line.startswith("herald_registry_read_through_total{"):
            outcome = line.split('outcome="', 1)[1].split('"', 1)[0]
            counts[outcome] = float(line.rsplit(" ", 1)[1])
    return counts


def test_a_flood_of_unknown_tokens_costs_a_bounded_number_of_database_reads(nodes):
    a, _ = nodes
    before = read_through_counts(a)
    client = H2Client(a.apns_url)
    try:
        # The same unknown token 100 times: read once, then remembered as missing.
        same = os.urandom(32).hex()
        streams = client.push_many([(same, a.headers(), b'{"aps":{"alert":"x"}}') for _ in range(100)], window=1)
        assert {s.status for s in streams} == {400}
        assert {json.loads(s.data)["reason"] for s in streams} == {"BadDeviceToken"}
        after_same = read_through_counts(a)
        assert after_same["missing"] - before["missing"] == 1, after_same
        # 2,000 different unknown tokens at once: every one refused, at most the budget read.
        started = time.monotonic()
        streams = client.push_many([(os.urandom(32).hex(), a.headers(), b'{"aps":{"alert":"x"}}')
                                    for _ in range(2000)], window=100, timeout=60)
        elapsed = time.monotonic() - started
        assert {json.loads(s.data)["reason"] for s in streams} == {"BadDeviceToken"}
        after = read_through_counts(a)
    finally:
        client.close()
    reads = after["missing"] - after_same["missing"]
    skipped = after["not_read"] - after_same["not_read"]
    assert reads + skipped == 2000
    assert reads <= 200 + 200 * elapsed + 1, f"{reads:.0f} reads in {elapsed:.2f}s"
    REPORT.append(f"two PostgreSQL nodes: 2,000 pushes to unknown tokens in {elapsed:.2f}s cost {reads:.0f} database "
                  f"reads ({skipped:.0f} refused unread); the same unknown token 100 times, one read")


def test_kill_9_of_one_node_under_load_loses_no_acknowledged_push(nodes):
    a, b = nodes
    device = a.new_device()
    acknowledged: list[str] = []
    failures: list[str] = []
    stop = threading.Event()

    def push_to_a():
        client = H2Client(a.apns_url)
        try:
            while not stop.is_set():
                apns_id = new_apns_id()
                try:
                    result = client.push(device.device_token, a.headers(apns_id=apns_id), {"aps": {"alert": "load"}})
                except Exception as error:  # the node is gone mid-push: not acknowledged
                    failures.append(type(error).__name__)
                    return
                if result.status == 200:
                    acknowledged.append(apns_id)
        finally:
            try:
                client.close()
            except Exception:
                pass

    with SSEClient(b.api_url, device.device_id, device.user_token) as stream:
        stream.wait_connected()
        pusher = threading.Thread(target=push_to_a, daemon=True)
        pusher.start()
        wait_until(lambda: len(acknowledged) >= 150, timeout=30, what="150 pushes acknowledged by node A")
        a.server.kill9()
        stop.set()
        pusher.join(10)
        count = len(acknowledged)
        listed = set(b.listed_ids(device))
        assert set(acknowledged) <= listed, f"{len(set(acknowledged) - listed)} acknowledged pushes not listed"
        delivered = notification_ids(stream.collect(count, timeout=30))
        assert set(acknowledged) <= set(delivered)
        assert len(delivered) == len(set(delivered))
    REPORT.append(f"two PostgreSQL nodes: node A killed with SIGKILL after acknowledging {count} pushes: "
                  f"all {count} listed and delivered to the session on node B")
    # Node A comes back on the same database and data directory.
    a.restart()
    assert set(acknowledged) <= {n["id"] for n in a.all_notifications(device)}




def test_what_a_person_changes_on_one_node_the_other_decides_and_streams_with(nodes):
    a, b = nodes
    device = a.new_device()
    to_b = H2Client(b.apns_url)

    def disposition_on_b() -> str:
        apns_id = new_apns_id()
        assert to_b.push(device.device_token, b.headers(apns_id=apns_id), {"aps": {"alert": "hi"}}).status == 200
        [n] = [n for n in b.all_notifications(device) if n["id"] == apns_id]
        return n["disposition"]

    # A push through node B (once B has heard of the token registered on A, milliseconds): B keeps
    # what it read of the person and the device.
    wait_until(lambda: to_b.push(device.device_token, b.headers(), {"aps": {"alert": "hi"}}).status == 200,
               timeout=5, what="node B takes the token registered on node A")
    assert disposition_on_b() == "alerted"
    # Through node A the person turns the Work Focus on: node B's next decision holds the push.
    assert a.api("PUT", "/v1/me/focus-modes/work", token=device.user_token, body={}).status in (200, 201)
    started = time.monotonic()
    assert a.api("POST", "/v1/me/focus-modes/work/on", token=device.user_token).status == 200
    wait_until(lambda: disposition_on_b() == "heldForFocus", timeout=5, what="node B holds for the Focus set on A")
    lag = time.monotonic() - started
    assert a.api("POST", "/v1/me/focus-modes/work/off", token=device.user_token).status == 200
    # A device's state changed through node A reaches a session on node B.
    with SSEClient(b.api_url, device.device_id, device.user_token) as stream:
        stream.wait_connected()
        r = a.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token,
                  body={"ringer_silent": True})
        assert r.status == 200, r
        states = [e for e in stream.drain(2) if e.event == "state"]
        assert states and json.loads(states[-1].data)["ringer_silent"] is True, states
    to_b.close()
    REPORT.append(f"two PostgreSQL nodes: a Focus turned on through node A held node B's next push "
                  f"{lag * 1000:.0f} ms later; a device state set on A reached a session on B")


class SlowExtension:
    """A webhook service extension that counts its requests by notification (`webhook-id`) and
    answers the first one for each after `hold` seconds, the others at once."""

    def __init__(self, hold: float):
        self.hold = hold
        self.requests: collections.Counter[str] = collections.Counter()
        lock = threading.Lock()
        extension = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length", "0")))
                with lock:
                    extension.requests[self.headers["webhook-id"]] += 1
                    first = extension.requests[self.headers["webhook-id"]] == 1
                if first:
                    time.sleep(extension.hold)
                body = json.dumps({"payload": {"aps": {"alert": {"title": "Changed"}}}}).encode()
                try:
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the node that asked is gone
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/extension"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def test_a_service_extension_runs_once_across_nodes_and_a_dead_nodes_push_on_the_other(nodes):
    a, b = nodes
    extension = SlowExtension(hold=4)
    app = a.new_app(a.demo["team_id"])
    device = a.new_device(app)
    a.admin("PUT", f"/v1/admin/apps/{app}/service-extension", {"url": extension.url, "timeout_seconds": 25},
            expect=200)
    payload = {"aps": {"alert": {"title": "Sent"}, "mutable-content": 1}}
    try:
        # Node B starts again while node A's extension works on a push: B leaves it to A.
        to_a = H2Client(a.apns_url)
        first = new_apns_id()
        assert to_a.push(device.device_token, a.headers(topic=app, apns_id=first), payload).status == 200
        wait_until(lambda: extension.requests[first] == 1, timeout=10, what="node A's extension asked")
        assert b.server.stop(timeout=15) == 0
        b.restart()
        wait_until(lambda: first in a.listed_ids(device), timeout=20, what="the first push listed")
        time.sleep(0.5)
        assert extension.requests[first] == 1, "node B ran node A's push through the extension too"
        to_a.close()

        # Node A dies while its extension works on a push: node B, which heard of the extension
        # through the database, runs it once A's claim has ended.
        extension.hold = 300
        to_a = H2Client(a.apns_url)
        second = new_apns_id()
        assert to_a.push(device.device_token, a.headers(topic=app, apns_id=second), payload).status == 200
        wait_until(lambda: extension.requests[second] == 1, timeout=10, what="node A's extension asked")
        a.server.kill9()
        killed = time.monotonic()
        wait_until(lambda: second in b.listed_ids(device), timeout=60, what="node B ran the dead node's push")
        took = time.monotonic() - killed
        assert extension.requests[second] == 2
        [shown] = [n for n in b.all_notifications(device) if n["id"] == second]
        assert shown["payload"]["aps"]["alert"]["title"] == "Changed", shown["payload"]
        REPORT.append(f"two PostgreSQL nodes: a service extension's push ran once while the other node "
                      f"restarted; node A killed during one, node B ran it {took:.1f}s later (claims of 30 s)")
    finally:
        extension.close()
        if a.server.proc is None or a.server.proc.poll() is not None:
            a.restart()


def test_postgresql_stopped_under_load_refuses_pushes_then_takes_them_again(tmp_path):
    """A node on a PostgreSQL server of its own, a session open and one HTTP/2 connection pushing
    without pause: the server is stopped (`pg_ctl -m fast`), then started again. Meanwhile each push
    is answered 500 InternalServerError (or 503 as the node stops, which it does not here), and once
    the server is back pushes are acknowledged again; every acknowledged push is listed and reached
    the session, which stayed open throughout."""
    script = str(REPO / "scripts" / "pg-temp")
    cluster = Path(tempfile.mkdtemp(prefix="herald-pg-restart-"))
    os.chmod(cluster, 0o755)
    started = subprocess.run([script, "start", str(cluster)], capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    url = started.stdout.strip()
    server = HeraldServer(tmp_path / "data", ["--database", url], name="restart").start()
    try:
        env = HeraldEnv(server, server.demo())
        device = env.new_device()
        acknowledged: list[str] = []
        refusals: list[tuple[int, str]] = []
        refused_ids: list[str] = []
        errors: list[str] = []
        stop = threading.Event()

        def pusher():
            client = H2Client(env.apns_url)
            try:
                while not stop.is_set():
                    apns_id = new_apns_id()
                    result = client.push(device.device_token, env.headers(apns_id=apns_id), {"aps": {"alert": "x"}})
                    if result.status == 200:
                        acknowledged.append(apns_id)
                    else:
                        reason = json.loads(result.data or b"{}").get("reason", "")
                        refusals.append((result.status, reason))
                        refused_ids.append(apns_id)
                        time.sleep(0.05)
            except Exception as error:
                errors.append(f"{type(error).__name__}: {error}")
            finally:
                client.close()

        with SSEClient(env.api_url, device.device_id, device.user_token) as stream:
            stream.wait_connected()
            thread = threading.Thread(target=pusher, daemon=True)
            thread.start()
            wait_until(lambda: len(acknowledged) >= 50 or errors, timeout=30, what="50 pushes acknowledged")
            down = subprocess.run([script, "stop", str(cluster)], capture_output=True, text=True, timeout=60)
            assert down.returncode == 0, down.stderr
            before = len(acknowledged)
            wait_until(lambda: len(refusals) >= 5 or errors, timeout=60,
                       what="pushes refused while PostgreSQL is down")
            stopped_at = time.monotonic()
            up = subprocess.run([script, "start", str(cluster)], capture_output=True, text=True, timeout=120)
            assert up.returncode == 0, up.stderr
            after_start = len(acknowledged)
            wait_until(lambda: len(acknowledged) >= after_start + 50 or errors, timeout=60,
                       what="50 pushes acknowledged after PostgreSQL started again")
            recovered = time.monotonic() - stopped_at
            stop.set()
            thread.join(20)
            assert not thread.is_alive(), "the pusher did not end: a push went unanswered"
            assert errors == [], errors
            assert set(refusals) <= {(500, "InternalServerError"), (503, "ServiceUnavailable")}, refusals
            listed = set(env.listed_ids(device))
            missing = set(acknowledged) - listed
            assert not missing, f"{len(missing)} acknowledged pushes not listed"
            # A push answered 500 may still have been stored: its commit reached PostgreSQL but the answer
            # was lost with the connection (no server can tell), so it is listed and delivered too. The
            # stream is read until every acknowledged push came, not for a count of events.
            delivered: list[str] = []
            deadline = time.monotonic() + 30
            while not set(acknowledged) <= set(delivered):
                left = deadline - time.monotonic()
                assert left > 0, f"{len(set(acknowledged) - set(delivered))} acknowledged pushes not delivered"
                delivered += notification_ids(stream.collect(1, timeout=left))
            assert len(delivered) == len(set(delivered)), "a notification was delivered twice"
            stored_unacknowledged = set(delivered) - set(acknowledged)
            assert stored_unacknowledged <= set(refused_ids), "a notification delivered that was never pushed"
        REPORT.append(f"PostgreSQL stopped under load: {before} pushes acknowledged before, {len(refusals)} "
                      f"answered 500 while it was down ({len(stored_unacknowledged)} of them stored nevertheless), "
                      f"acknowledged again {recovered:.1f}s after the refusals began; all {len(acknowledged)} "
                      f"acknowledged listed and delivered, none twice")
    finally:
        if server.proc and server.proc.poll() is None:
            assert server.stop(timeout=20) == 0, server.log_tail()
        subprocess.run([script, "stop", str(cluster)], capture_output=True, timeout=60)
        shutil.rmtree(cluster, ignore_errors=True)
