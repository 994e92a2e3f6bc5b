"""Two Herald nodes on one PostgreSQL database (`herald serve --database postgres://…`), sharing a
data directory, as README's "Several nodes" section runs them: a push accepted by either node reaches
a live session on the other, in order, with no gap and no duplicate; a session resumes by cursor on
either node; a device token registered on one node is taken by the other; when one node is killed
with SIGKILL under load, every push it acknowledged is listed and reaches the session on the node that
survives; and when PostgreSQL itself stops under load and starts again, the node refuses pushes with
500 meanwhile (never a 200 it cannot keep, never a wait without end) and takes them again after. The PostgreSQL server is Debian's, started in a temporary directory (`scripts/pg-temp`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
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
    # Node A hears of the registration through the database (a signal when it commits).
    wait_until(lambda: to_a.push(token, a.headers(), {"aps": {"alert": "hi"}}).status == 200, timeout=5,
               what="node A takes the token registered on node B")
    lag = time.monotonic() - started
    # Unregistered on node A: node B refuses it as APNs does.
    b_client = H2Client(b.apns_url)
    a.unregister(token)
    wait_until(lambda: b_client.push(token, b.headers(), {"aps": {"alert": "hi"}}).status == 410, timeout=5,
               what="node B refuses the token unregistered on node A")
    REPORT.append(f"two PostgreSQL nodes: a token registered on one node was taken by the other after "
                  f"{lag * 1000:.0f} ms")
    to_a.close()
    b_client.close()


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
            delivered = notification_ids(stream.collect(len(acknowledged), timeout=30))
            assert set(acknowledged) <= set(delivered)
        REPORT.append(f"PostgreSQL stopped under load: {before} pushes acknowledged before, {len(refusals)} "
                      f"answered 500 while it was down, acknowledged again {recovered:.1f}s after the "
                      f"refusals began; all {len(acknowledged)} acknowledged listed and delivered")
    finally:
        if server.proc and server.proc.poll() is None:
            assert server.stop(timeout=20) == 0, server.log_tail()
        subprocess.run([script, "stop", str(cluster)], capture_output=True, timeout=60)
        shutil.rmtree(cluster, ignore_errors=True)
