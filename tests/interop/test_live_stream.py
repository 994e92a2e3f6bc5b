"""Live delivery to a device's sessions: SSE and WebSocket, resume by cursor, fan-out, slow sessions."""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

import pytest
from websockets.sync.client import connect as ws_connect

from herald_support import alert_payload, new_apns_id, REPORT, SSEClient, stalled_sse_socket


def push(herald, h2, device, title="live"):
    apns_id = new_apns_id()
    st = h2.push(device.device_token, herald.headers(apns_id=apns_id), alert_payload(title, "body"))
    assert st.status == 200, st
    return apns_id


def push_n(herald, h2, device, n: int) -> list[str]:
    """Pushes n notifications pipelined on one connection; returns their ids in the device's list
    order (the server may commit concurrent streams in any order; the list order is the feed order)."""
    ids = [new_apns_id() for _ in range(n)]
    streams = h2.push_many([(device.device_token, herald.headers(apns_id=i), b'{"aps":{"alert":"bulk"}}')
                            for i in ids], window=100, timeout=120)
    bad = [s for s in streams if s.status != 200]
    assert not bad, bad[:3]
    wanted = set(ids)
    ordered = [i for i in herald.listed_ids(device) if i in wanted]
    assert sorted(ordered) == sorted(ids), "every acknowledged push is listed once"
    return ordered


def sse(herald, device, **kw) -> SSEClient:
    s = SSEClient(herald.api_url, device.device_id, device.user_token, **kw)
    assert s.status == 200, (s.status, s.error_body)
    assert s.content_type.startswith("text/event-stream"), s.content_type
    return s.wait_connected()


def test_sse_receives_a_push_within_a_second(herald, h2, device):
    with sse(herald, device) as s:
        t0 = time.monotonic()
        apns_id = push(herald, h2, device, "Hello SSE")
        [ev] = s.collect(1, timeout=3)
        latency = time.monotonic() - t0
    assert latency < 1.0, f"SSE delivery took {latency:.3f}s"
    assert ev.event == "notification"
    n = ev.json()
    assert n["id"] == apns_id and n["alert"]["title"] == "Hello SSE" and n["device_id"] == device.device_id
    assert ev.id == n["cursor"], "the SSE id must be the notification's cursor"
    REPORT.append(f"SSE push-to-event latency: {latency * 1000:.1f} ms")


def test_sse_with_access_token_query(herald, h2, device):
    with sse(herald, device, token_in_query=True) as s:
        apns_id = push(herald, h2, device)
        assert s.collect(1, timeout=3)[0].notification_id == apns_id


@pytest.mark.parametrize("how", ["Last-Event-ID", "?cursor="])
def test_sse_resume_gets_exactly_the_missed_ones_in_order(herald, h2, device, how):
    # Given a session that saw one notification and disconnected
    with sse(herald, device) as s:
        first = push(herald, h2, device)
        [ev] = s.collect(1, timeout=3)
        assert ev.notification_id == first
        last_id = ev.id
    # When 50 more arrive while nobody listens
    missed = push_n(herald, h2, device, 50)
    # Then resuming from the last seen id gives exactly those 50, in order, once, then live ones
    kw = {"last_event_id": last_id} if how == "Last-Event-ID" else {"cursor": last_id}
    with sse(herald, device, **kw) as s:
        got = s.collect(50, timeout=10)
        assert [e.notification_id for e in got] == missed
        assert all(e.event == "notification" for e in got)
        live = push(herald, h2, device)
        rest = s.collect(1, timeout=3)
        assert [e.notification_id for e in rest] == [live], "nothing sent twice; live resumes after catch-up"
        cursors = [e.id for e in got + rest]
        assert len(set(cursors)) == len(cursors)


def test_two_sessions_both_get_every_notification(herald, h2, device):
    with sse(herald, device) as a, sse(herald, device) as b:
        ids = push_n(herald, h2, device, 30)
        got_a = [e.notification_id for e in a.collect(30, timeout=10)]
        got_b = [e.notification_id for e in b.collect(30, timeout=10)]
    assert got_a == ids and got_b == ids


def test_a_session_that_never_reads_does_not_hold_up_another(herald, h2, device):
    # Given a session whose client never reads, and a healthy one
    stalled = stalled_sse_socket(herald.api_url, device.device_id, device.user_token)
    try:
        with sse(herald, device) as healthy:
            # When 2000 notifications are pushed
            t0 = time.monotonic()
            ids = push_n(herald, h2, device, 2000)
            pushed = time.monotonic() - t0
            # Then the healthy session gets all of them promptly
            got = healthy.collect(2000, timeout=20)
            lag = time.monotonic() - t0 - pushed
            assert [e.notification_id for e in got] == ids
            assert lag < 5, f"healthy session finished {lag:.1f}s after the last push"
            REPORT.append(f"stalled-session test: 2000 pushes in {pushed:.2f}s, healthy session done "
                          f"{lag * 1000:.0f} ms after the last 200")
        # And the stalled session, once it reads, still gets each one once, in order (store fallback)
        late = SSEClient.from_socket(stalled, timeout=10)
        stalled = None
        assert late.status == 200
        got_late = late.collect(2000, timeout=30)
        assert [e.notification_id for e in got_late] == ids
        assert late.drain(0.5) == []
        late.close()
    finally:
        if stalled is not None:
            stalled.close()


# ---- WebSocket --------------------------------------------------------------------------------

def ws_url(herald, device, **params) -> str:
    from urllib.parse import urlencode
    parts = urlsplit(herald.api_url)
    q = ("?" + urlencode(params)) if params else ""
    return f"ws://{parts.hostname}:{parts.port}/v1/devices/{device.device_id}/stream{q}"


def ws_recv(ws, timeout=5) -> dict:
    msg = ws.recv(timeout=timeout)
    assert isinstance(msg, str), f"expected a text message, got {type(msg)}"
    return json.loads(msg)


def test_websocket_receives_live_events_and_resumes_with_cursor(herald, h2, device):
    auth = {"Authorization": f"Bearer {device.user_token}"}
    with ws_connect(ws_url(herald, device), additional_headers=auth, proxy=None, open_timeout=5) as ws:
        time.sleep(0.2)
        first = push(herald, h2, device, "WS")
        m = ws_recv(ws)
        assert m["type"] == "notification" and m["notification"]["id"] == first
        assert m["notification"]["alert"]["title"] == "WS"
        assert isinstance(m["cursor"], str) and m["cursor"] == m["notification"]["cursor"]
        cursor = m["cursor"]
    missed = push_n(herald, h2, device, 10)
    with ws_connect(ws_url(herald, device, cursor=cursor, access_token=device.user_token), proxy=None,
                    open_timeout=5) as ws:
        got = [ws_recv(ws) for _ in range(10)]
        assert [g["notification"]["id"] for g in got] == missed
        live = push(herald, h2, device)
        assert ws_recv(ws)["notification"]["id"] == live


def test_websocket_sees_removed_events(herald, h2, device):
    with ws_connect(ws_url(herald, device, access_token=device.user_token), proxy=None, open_timeout=5) as ws:
        time.sleep(0.2)
        a = push(herald, h2, device)
        assert ws_recv(ws)["notification"]["id"] == a
        r = herald.api("DELETE", f"/v1/devices/{device.device_id}/notifications/{a}", token=device.user_token)
        assert r.status == 204
        m = ws_recv(ws)
        assert m["type"] == "removed", m
        assert (m.get("notification") or {}).get("id", m.get("id")) == a, m


def ws_refusal(url: str, headers=None):
    from websockets.exceptions import InvalidStatus
    with pytest.raises(InvalidStatus) as e:
        with ws_connect(url, additional_headers=headers, proxy=None, open_timeout=5):
            pass
    return e.value.response


@pytest.mark.parametrize("token", [None, "wrong-token"])
def test_websocket_refuses_a_missing_or_wrong_token_with_401(herald, device, token):
    resp = ws_refusal(ws_url(herald, device, **({"access_token": token} if token else {})))
    assert resp.status_code == 401, (resp.status_code, resp.body)
    assert json.loads(bytes(resp.body))["error"]["code"], resp.body


def test_websocket_refuses_another_users_device_with_404(herald, device):
    other = herald.new_device()
    resp = ws_refusal(ws_url(herald, device, access_token=other.user_token))
    assert resp.status_code == 404, (resp.status_code, resp.body)
    assert json.loads(bytes(resp.body))["error"]["code"] == "device_not_found", resp.body


def test_stream_shows_changes_and_resume_sends_each_row_once_in_its_latest_state(herald, h2, device):
    tok = device.user_token
    with sse(herald, device) as s:
        a = push(herald, h2, device, "A")
        b = push(herald, h2, device, "B")
        ev_a, ev_b = s.collect(2, timeout=3)
        assert (ev_a.notification_id, ev_b.notification_id) == (a, b)
        # a live session sees a read as a change of A, and a delete as `removed`
        assert herald.api("POST", f"/v1/devices/{device.device_id}/notifications/{a}/read", token=tok).status == 200
        [changed] = s.collect(1, timeout=3)
        assert changed.event == "notification" and changed.notification_id == a and changed.json()["read_at"]
        assert herald.api("DELETE", f"/v1/devices/{device.device_id}/notifications/{b}", token=tok).status == 204
        [removed] = s.collect(1, timeout=3)
        assert removed.event == "removed" and removed.notification_id == b
    # resuming from before A: A once (read), B once (removed) — latest states, in change order
    with sse(herald, device, last_event_id=ev_a.id) as s:
        got = s.collect(2, timeout=3)
        assert [(e.event, e.notification_id) for e in got] == [("notification", a), ("removed", b)]
        assert got[0].json()["read_at"]
        assert s.drain(0.4) == [], "a resumed stream must send each row once"
