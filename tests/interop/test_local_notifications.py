"""Apps' local notifications through the app API of the real binary, as an app (curl-like HTTP) and an
admin (`herald admin app-credential`) would use it: a credential scoped to one app on one device, a
request delivered at once and one fired by its trigger on the server's clock, both in the user's
list and stream with their decision, and what an app may not do."""

from __future__ import annotations

import http.client
import json
import subprocess
import threading
import time
import uuid
from urllib.parse import urlsplit

from herald_support import SSEClient, herald_bin, note_secret


def cli_credential(herald, device) -> str:
    out = subprocess.run([herald_bin(), "admin", "app-credential", "--device-id", device.device_id,
                          "--bundle-id", herald.topic, "--url", herald.api_url, "--admin-token", herald.admin_token],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    created = json.loads(out.stdout)
    assert created["device_id"] == device.device_id and created["bundle_id"] == herald.topic, created
    return note_secret(created["credential"])


def add(herald, credential, identifier, content, trigger=None):
    return herald.api("POST", "/v1/app/requests", token=credential,
                      body={"identifier": identifier, "content": content, "trigger": trigger})


def test_a_local_notification_reaches_the_users_list_with_its_decision(herald, device):
    credential = cli_credential(herald, device)
    r = add(herald, credential, "now", {"title": "Local", "body": "At once", "interruption_level": "passive"})
    assert r.status == 201, r
    assert r.json()["delivered"] is True
    [n] = herald.all_notifications(device)
    assert n["alert"] == {"title": "Local", "subtitle": None, "body": "At once"}
    assert n["bundle_id"] == herald.topic
    assert n["disposition"] == "listedSilently", n["decision"]
    assert n["decision"]["sound"]["plays"] is False
    r = herald.api("GET", f"/v1/notifications/{n['id']}/decision", token=device.user_token)
    assert r.status == 200 and r.json()["disposition"] == "listedSilently", r


def test_a_time_interval_trigger_fires_on_the_servers_clock(herald, device):
    credential = cli_credential(herald, device)
    r = add(herald, credential, "in-a-second", {"body": "Later"},
            {"type": "time_interval", "time_interval": 1, "repeats": False})
    assert r.status == 201 and r.json()["delivered"] is False, r
    pending = herald.api("GET", "/v1/app/requests", token=credential).json()["requests"]
    assert [p["identifier"] for p in pending] == ["in-a-second"]
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        delivered = herald.api("GET", "/v1/app/notifications", token=credential).json()["notifications"]
        if delivered:
            break
        time.sleep(0.1)
    assert [d["identifier"] for d in delivered] == ["in-a-second"], "the trigger did not fire within 15 s"
    assert delivered[0]["source"] == "local" and delivered[0]["trigger"]["time_interval"] == 1
    assert herald.api("GET", "/v1/app/requests", token=credential).json()["requests"] == []
    [n] = herald.all_notifications(device)
    assert n["alert"]["body"] == "Later"


def test_an_app_reaches_only_its_own_device_and_app(herald, device):
    mine = cli_credential(herald, device)
    other = herald.new_device()
    theirs = herald.app_credential(other.device_id)
    assert add(herald, theirs, "theirs", {"body": "x"}).status == 201
    # Nothing in the app API names a device or an app: mine sees nothing of theirs, removes nothing.
    assert herald.api("GET", "/v1/app/notifications", token=mine).json()["notifications"] == []
    assert herald.api("DELETE", "/v1/app/notifications", token=mine).json()["removed"] == []
    assert len(herald.all_notifications(other)) == 1
    # A user's token is not an app credential, and an app credential is not a user's token.
    assert herald.api("GET", "/v1/app/requests", token=device.user_token).status == 401
    assert herald.api("GET", f"/v1/devices/{device.device_id}/notifications", token=mine).status == 401


def test_refusals_name_their_field_and_change_nothing(herald, device):
    credential = herald.app_credential(device.device_id)
    r = add(herald, credential, "bad", {"body": "x"}, {"type": "time_interval", "time_interval": 10, "repeats": True})
    assert r.status == 400 and r.json()["error"]["code"] == "invalid_trigger", r
    assert "time interval must be at least 60 if repeating" in r.json()["error"]["message"]
    r = add(herald, credential, "bad", {})
    assert r.status == 400 and r.json()["error"]["code"] == "notification_invalid_no_content", r
    r = herald.api("POST", "/v1/app/requests", token=credential, body=b'{"identifier": "x", "content": {')
    assert r.status == 400 and r.json()["error"]["code"] == "invalid_json", r
    assert herald.api("GET", "/v1/app/requests", token=credential).json()["requests"] == []
    assert herald.all_notifications(device) == []


def test_the_repeating_limit_and_replacement(herald, device):
    credential = herald.app_credential(device.device_id)
    daily = {"type": "calendar", "date_components": {"hour": 8, "minute": 0}, "repeats": True}
    dropped = []
    for i in range(66):
        r = add(herald, credential, f"r{i}", {"body": f"{i}"}, daily)
        assert r.status == 201, r
        dropped += r.json()["dropped"]
    assert dropped == ["r0", "r1"], "the 65th and 66th drop the oldest added"
    r = add(herald, credential, "r10", {"body": "again"}, daily)
    assert r.json()["dropped"] == [], "replacing a pending request does not count twice"
    pending = herald.api("GET", "/v1/app/requests", token=credential).json()["requests"]
    assert len(pending) == 64
    assert [p["identifier"] for p in pending[:2]] == ["r2", "r3"]
    assert pending[-1]["identifier"] == "r10" and pending[-1]["content"]["body"] == "again"
    # 08:00 in the user's time zone (UTC: nothing set).
    assert pending[-1]["next_trigger_date"].endswith("T08:00:00.000Z"), pending[-1]


def test_asking_for_permission_shows_on_the_device_and_returns_the_answer(herald):
    device = herald.new_device()
    credential = herald.app_credential(device.device_id)
    with SSEClient(herald.api_url, device.device_id, device.user_token) as stream:
        stream.wait_connected()
        r = herald.api("POST", "/v1/app/authorization", token=credential,
                       body={"options": ["alert", "sound"], "wait": 0})
        assert r.status == 202 and r.json()["granted"] is None, r
        request_id = r.json()["request"]["id"]
        event = stream.next(timeout=10)
        while event.event != "authorization_requests":
            event = stream.next(timeout=10)
        assert [q["id"] for q in event.json()["requests"]] == [request_id]
        assert event.id is None, "not a change of the list: no cursor"

    def authorize(*args):
        out = subprocess.run([herald_bin(), "authorize", "--device", device.device_id, "--url", herald.api_url,
                              "--token", device.user_token, *args], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert [q["bundle_id"] for q in authorize()["requests"]] == [herald.topic]
    # The app waits while the person decides; the answer comes back on the same call.
    answers = []
    waiter = threading.Thread(target=lambda: answers.append(herald.api(
        "POST", "/v1/app/authorization", token=credential, body={"options": ["alert"], "wait": 20})))
    waiter.start()
    time.sleep(0.3)
    answered = authorize(request_id, "--deny")
    assert answered["request"]["granted"] is False and answered["settings"]["authorization_status"] == "denied"
    waiter.join(25)
    assert answers and answers[0].status == 200 and answers[0].json()["granted"] is False, answers
    # Denied: adding is refused, and asking again returns the answer without a new request.
    r = herald.api("POST", "/v1/app/requests", token=credential, body={"identifier": "x", "content": {"body": "x"}})
    assert r.status == 403 and r.json()["error"]["code"] == "notifications_not_allowed", r
    r = herald.api("POST", "/v1/app/authorization", token=credential, body={"options": ["alert"]})
    assert r.status == 200 and r.json()["granted"] is False, r
    assert authorize()["requests"] == []


def test_a_response_reaches_the_apps_live_connection_once(herald):
    device = herald.new_device()
    credential = herald.app_credential(device.device_id)
    category = {"identifier": "reply", "actions": [
        {"identifier": "comment", "title": "Comment", "text_input": {"button_title": "Post", "placeholder": ""}}]}
    assert herald.api("PUT", "/v1/app/categories", token=credential, body={"categories": [category]}).status == 200
    r = add(herald, credential, "chat", {"body": "Hi", "category_identifier": "reply"})
    notification_id = r.json()["notification"]["notification"]["id"]
    path = f"/v1/devices/{device.device_id}/notifications/{notification_id}/response"
    r = herald.api("POST", path, token=device.user_token, body={"action_identifier": "comment"})
    assert r.status == 400 and r.json()["error"]["code"] == "missing_field", r
    r = herald.api("POST", path, token=device.user_token,
                   body={"action_identifier": "comment", "user_text": "On my way"})
    assert r.status == 201, r

    def read_stream(seconds: float) -> list[dict]:
        parts = urlsplit(herald.api_url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=seconds)
        conn.request("GET", "/v1/app/stream", headers={"Authorization": f"Bearer {credential}"})
        resp = conn.getresponse()
        assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/event-stream")
        events, data = [], b""
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                line = resp.fp.readline()
                if line.startswith(b"data: "):
                    events.append(json.loads(line[6:]))
                    deadline = min(deadline, time.monotonic() + 0.5)
        except (TimeoutError, OSError):
            pass
        finally:
            conn.close()
        return events

    [event] = read_stream(3)
    assert event["action_identifier"] == "comment" and event["user_text"] == "On my way"
    assert event["notification"]["identifier"] == "chat"
    assert read_stream(1.5) == [], "a response is handed out once"
