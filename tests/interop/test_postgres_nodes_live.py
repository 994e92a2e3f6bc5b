"""Two Herald nodes on one PostgreSQL database, as in test_postgres_nodes.py, and what each knows of
the other's live connections and time-driven work: a person's response made through one node reaches
the app connected to the other at once; a device connected to one node is "in use" for a push
accepted by the other (a now-or-never push is delivered); a foreground app connected to one node is
asked `willPresent` for a push accepted by the other; a Focus turned on through one node reaches the
device's session on the other (`event: focus`); one node leads the time-driven services (Focus
releases, summaries, triggers) and the other takes over when it dies."""

from __future__ import annotations

import http.client
import json
import queue
import socket
import threading
import time
from urllib.parse import urlsplit

from herald_support import REPORT, H2Client, SSEClient, new_apns_id, wait_until
from test_postgres_nodes import nodes  # noqa: F401  (the fixture: two nodes of this module's own)


def test_a_response_on_one_node_reaches_the_app_connected_to_the_other_at_once(nodes):
    a, b = nodes
    device = a.new_device()
    credential = a.app_credential(device.device_id)
    r = a.api("POST", "/v1/app/requests", token=credential, body={"identifier": "ask", "content": {"body": "Ask"}})
    assert r.status == 201, r
    notification_id = r.json()["notification"]["notification"]["id"]
    # The app's live connection is on node A...
    parts = urlsplit(a.api_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)
    conn.request("GET", "/v1/app/stream", headers={"Authorization": f"Bearer {credential}"})
    resp = conn.getresponse()
    assert resp.status == 200
    received: "queue.Queue[dict]" = queue.Queue()

    stream = resp.fp  # (the connection's close sets resp.fp to None)

    def read():
        try:
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    received.put(json.loads(line[6:]))
        except (OSError, ValueError):
            pass

    threading.Thread(target=read, daemon=True).start()
    time.sleep(0.3)  # (the stream has read the store once, found nothing, and waits)
    # ...and the person answers through node B: A's connection hears of it through the database,
    # not at its next 15-second heartbeat.
    started = time.monotonic()
    r = b.api("POST", f"/v1/devices/{device.device_id}/notifications/{notification_id}/response",
              token=device.user_token, body={"action_identifier": "default"})
    assert r.status == 201, r
    event = received.get(timeout=5)
    took = time.monotonic() - started
    # (Shut down first: closing alone waits for the reader thread, blocked in readline.)
    conn.sock.shutdown(socket.SHUT_RDWR)
    conn.close()
    assert event["notification"]["identifier"] == "ask", event
    REPORT.append(f"two PostgreSQL nodes: a response made through node B reached the app connected to node A "
                  f"{took * 1000:.0f} ms later")


def test_a_device_connected_to_one_node_is_in_use_for_a_push_to_the_other(nodes):
    """A push with `apns-expiration: 0` ("now or never") accepted by node A reaches the device's
    session on node B: node A knows of the session there (presence), where it would drop the push."""
    a, b = nodes
    device = a.new_device()
    to_a = H2Client(a.apns_url)
    wait_until(lambda: to_a.push(device.device_token, a.headers(), {"aps": {"alert": "warm"}}).status == 200,
               timeout=5, what="node A takes the new token")
    with SSEClient(b.api_url, device.device_id, device.user_token) as stream:
        stream.wait_connected()
        time.sleep(0.5)  # node B tells node A of the session (milliseconds)
        apns_id = new_apns_id()
        r = to_a.push(device.device_token, a.headers(apns_id=apns_id, expiration=0), {"aps": {"alert": "now"}})
        assert r.status == 200
        events = [json.loads(e.data)["id"] for e in stream.drain(1.5) if e.event == "notification"]
    to_a.close()
    assert apns_id in events, "the now-or-never push was dropped: node A did not know the device was connected"
    assert apns_id in b.listed_ids(device)


def test_a_focus_turned_on_through_one_node_reaches_the_devices_session_on_the_other(nodes):
    """`event: focus` (outside the change feed) goes to the device's sessions on every node."""
    a, b = nodes
    device = a.new_device()
    assert a.api("PUT", "/v1/me/focus-modes/work", token=device.user_token, body={}).status in (200, 201)
    with SSEClient(b.api_url, device.device_id, device.user_token) as stream:
        stream.wait_connected()
        time.sleep(0.5)  # node B tells node A of the session (milliseconds)
        started = time.monotonic()
        assert a.api("POST", "/v1/me/focus-modes/work/on", token=device.user_token).status == 200
        focus = []
        while not focus and time.monotonic() - started < 5:
            focus = [e for e in stream.drain(0.3) if e.event == "focus"]
        took = time.monotonic() - started
    assert focus and json.loads(focus[-1].data)["active"]["id"] == "work", focus
    assert a.api("POST", "/v1/me/focus-modes/work/off", token=device.user_token).status == 200
    REPORT.append(f"two PostgreSQL nodes: a Focus turned on through node A reached the device's session on node B "
                  f"as event: focus {took * 1000:.0f} ms later")


def test_a_foreground_app_on_one_node_is_asked_will_present_for_a_push_to_the_other(nodes):
    a, b = nodes
    device = a.new_device()
    credential = b.app_credential(device.device_id)
    r = a.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token,
              body={"locked": False, "foreground_app": {"bundle_id": device.bundle_id}})
    assert r.status == 200, r
    # The app, in front, is connected to node B and answers willPresent.
    parts = urlsplit(b.api_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("GET", "/v1/app/stream?will_present=true", headers={"Authorization": f"Bearer {credential}"})
    resp = conn.getresponse()
    assert resp.status == 200
    stream = resp.fp
    questions: "queue.Queue[tuple[str, dict]]" = queue.Queue()

    def read():
        event_id = None
        try:
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.startswith(b"id: "):
                    event_id = line[4:].strip().decode()
                elif line.startswith(b"data: ") and event_id:
                    questions.put((event_id, json.loads(line[6:])))
                    event_id = None
        except (OSError, ValueError):
            pass

    threading.Thread(target=read, daemon=True).start()
    time.sleep(0.5)  # node B tells node A of the app (milliseconds)
    to_a = H2Client(a.apns_url)
    wait_until(lambda: to_a.push(device.device_token, a.headers(), {"aps": {"alert": "warm"}}).status == 200,
               timeout=5, what="node A takes the new token")
    # The warm-up push was asked too; answer it and any other, then push the one we look at.
    result: dict = {}

    def answer_all():
        while True:
            try:
                question_id, _ = questions.get(timeout=10)
            except queue.Empty:
                return
            r = b.api("POST", f"/v1/app/will-present/{question_id}", token=credential,
                      body={"options": ["banner", "sound"]})
            result.setdefault("answers", []).append(r.status)

    answering = threading.Thread(target=answer_all, daemon=True)
    answering.start()
    apns_id = new_apns_id()
    started = time.monotonic()
    r = to_a.push(device.device_token, a.headers(apns_id=apns_id),
                  {"aps": {"alert": {"title": "Breaking", "body": "b"}, "sound": "default"}})
    took = time.monotonic() - started
    to_a.close()
    # (Shut down first: closing alone waits for the reader thread, blocked in readline.)
    conn.sock.shutdown(socket.SHUT_RDWR)
    conn.close()
    assert r.status == 200
    [pushed] = [n for n in a.all_notifications(device) if n["id"] == apns_id]
    assert "foreground-will-present" in pushed["decision"]["reason_codes"], pushed["decision"]
    assert pushed["decision"]["disposition"] == "alerted", pushed["decision"]
    assert 204 in result.get("answers", []), result
    REPORT.append(f"two PostgreSQL nodes: a push accepted by node A asked the foreground app connected to node B "
                  f"willPresent and was answered; the push took {took * 1000:.0f} ms")


def scheduled_services(env) -> str:
    """What `/readyz` says of the node: `leading` or `standby` (of the time-driven services)."""
    r = env.api("GET", "/readyz")
    assert r.status == 200, r
    assert r.json()["status"] == "ready" and r.json()["database"] == "ok", r.json()
    return r.json()["scheduled_services"]


def test_time_driven_services_run_on_one_node_and_the_other_takes_over(nodes):
    a, b = nodes
    wait_until(lambda: sorted(scheduled_services(env) for env in (a, b)) == ["leading", "standby"], timeout=15,
               what="one node leads the time-driven services, the other stands by")
    leader, standby = (a, b) if scheduled_services(a) == "leading" else (b, a)
    device = leader.new_device()
    credential = standby.app_credential(device.device_id)

    def add(identifier: str, body: str, seconds: float):
        r = standby.api("POST", "/v1/app/requests", token=credential,
                        body={"identifier": identifier, "content": {"body": body},
                              "trigger": {"type": "time_interval", "time_interval": seconds, "repeats": False}})
        assert r.status == 201 and r.json()["delivered"] is False, r

    def fired(body: str) -> list[dict]:
        return [n for n in standby.all_notifications(device) if (n.get("alert") or {}).get("body") == body]

    try:
        with SSEClient(standby.api_url, device.device_id, device.user_token) as stream:
            stream.wait_connected()
            # Added through the node that stands by: the leader's scheduler hears of it through the
            # database and fires it, once; the session on the standby node gets it once.
            add("soon", "Soon", 1)
            wait_until(lambda: fired("Soon"), timeout=10, what="the leader fired a request added on the other node")
            time.sleep(0.5)
            [soon] = fired("Soon")
            events = [e for e in stream.drain(0.5) if e.event == "notification"]
            assert [json.loads(e.data)["id"] for e in events] == [soon["id"]], events

            # A Focus turned off through the standby node: the leader releases what it held.
            token = device.user_token
            assert standby.api("PUT", "/v1/me/focus-modes/work", token=token, body={}).status in (200, 201)
            assert standby.api("POST", "/v1/me/focus-modes/work/on", token=token).status == 200
            to_standby = H2Client(standby.apns_url)
            held_id = new_apns_id()
            wait_until(lambda: to_standby.push(device.device_token, standby.headers(apns_id=held_id),
                                               {"aps": {"alert": "held"}}).status == 200,
                       timeout=5, what="the standby node takes the new device's token")
            to_standby.close()
            [held] = [n for n in standby.all_notifications(device) if n["id"] == held_id]
            assert held["disposition"] == "heldForFocus", held
            assert standby.api("POST", "/v1/me/focus-modes/work/off", token=token).status == 200
            wait_until(lambda: [n["disposition"] for n in standby.all_notifications(device) if n["id"] == held_id]
                       == ["listedSilently"], timeout=10, what="the leader released what the Focus held (quietly)")

        # A request due in 6 s; the leader dies first: the other node takes the lease over (the
        # server frees a dead node's lock at once; the others try every 2 s) and fires it.
        add("later", "Later", 6)
        leader.server.kill9()
        killed = time.monotonic()
        wait_until(lambda: scheduled_services(standby) == "leading", timeout=15,
                   what="the surviving node leads the time-driven services")
        took_over = time.monotonic() - killed
        wait_until(lambda: fired("Later"), timeout=20, what="the surviving node fired the dead leader's request")
        assert len(fired("Later")) == 1
        REPORT.append(f"two PostgreSQL nodes: one leads the time-driven services; a request added on the other "
                      f"fired once by the leader; leader killed, the other led {took_over:.1f}s later and fired it")
    finally:
        if leader.server.proc is None or leader.server.proc.poll() is not None:
            leader.restart()
    # Restarted, the old leader stands by.
    assert scheduled_services(leader) == "standby"
