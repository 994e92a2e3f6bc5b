"""The device's notification list over the JSON API: fields, read/dismiss/delete, paging, collapse id,
expiration, errors, and isolation between users."""

from __future__ import annotations

import random
import string
import time

import pytest

from herald_support import alert_payload, iso_ms_utc, new_apns_id, query, SSEClient

FIELDS = {"id", "cursor", "device_id", "topic", "bundle_id", "push_type", "priority", "collapse_id", "expiration",
          "received_at", "read_at", "dismissed_at", "payload", "alert", "display", "badge", "sound", "thread_id", "category",
          "interruption_level", "relevance_score"}


def push(herald, h2, device, payload=None, **kw):
    apns_id = kw.pop("apns_id", None) or new_apns_id()
    st = h2.push(device.device_token, herald.headers(apns_id=apns_id, **kw), payload or alert_payload())
    assert st.status == 200, st
    return apns_id


def path(device, suffix=""):
    return f"/v1/devices/{device.device_id}/notifications{suffix}"


def check_api_error(res, status: int, code: str | None = None):
    assert res.status == status, res
    body = res.json()
    err = body.get("error") if isinstance(body, dict) else None
    assert isinstance(err, dict) and isinstance(err.get("code"), str) and isinstance(err.get("message"), str), body
    assert err["message"], body
    if code:
        assert err["code"] == code, body
    assert (res.header("content-type") or "").startswith("application/json"), res.headers
    return err


def test_notification_has_the_contract_fields(herald, h2, device):
    # Given a rich alert push
    payload = {"aps": {"alert": {"title": "Dinner", "subtitle": "Tonight", "body": "At 8?", "loc-key": "K"},
                       "badge": 4, "sound": "chime.caf", "thread-id": "family", "category": "INVITE",
                       "interruption-level": "time-sensitive", "relevance-score": 0.75},
               "custom": {"x": [1, 2]}}
    expiration = int(time.time()) + 3600
    before = time.time()
    apns_id = push(herald, h2, device, payload, priority=5, collapse_id="dinner", expiration=expiration)
    # When the device lists its notifications
    res = herald.notifications(device)
    # Then one notification with every contract field, as sent
    assert isinstance(res["cursor"], str)
    [n] = res["notifications"]
    assert FIELDS <= n.keys(), f"missing {FIELDS - n.keys()}"
    assert n["id"] == apns_id and n["device_id"] == device.device_id
    assert n["topic"] == herald.topic and n["bundle_id"] == herald.topic
    assert n["push_type"] == "alert" and n["priority"] == 5 and n["collapse_id"] == "dinner"
    assert n["expiration"] == expiration
    assert n["payload"] == payload
    assert {k: n["alert"].get(k) for k in ("title", "subtitle", "body")} == \
        {"title": "Dinner", "subtitle": "Tonight", "body": "At 8?"}
    assert n["badge"] == 4 and n["sound"] == "chime.caf" and n["thread_id"] == "family"
    assert n["category"] == "INVITE" and n["interruption_level"] == "time-sensitive"
    assert n["relevance_score"] == 0.75
    assert n["read_at"] is None and n["dismissed_at"] is None
    assert isinstance(n["cursor"], str) and n["cursor"]
    assert iso_ms_utc(n["received_at"]), n["received_at"]
    from datetime import datetime
    received = datetime.fromisoformat(n["received_at"].replace("Z", "+00:00")).timestamp()
    assert before - 2 <= received <= time.time() + 2, (before, n["received_at"])


def test_defaults_for_a_minimal_push(herald, h2, device):
    apns_id = push(herald, h2, device, {"aps": {"alert": "just a body"}})
    [n] = herald.notifications(device)["notifications"]
    assert n["id"] == apns_id
    assert n["priority"] == 10 and n["collapse_id"] is None and n["expiration"] is None
    assert n["alert"].get("body") == "just a body"


def test_get_read_dismiss_delete(herald, h2, device):
    a, b = push(herald, h2, device), push(herald, h2, device)
    tok = device.user_token
    one = herald.api("GET", path(device, f"/{a}"), token=tok)
    assert one.status == 200 and one.json()["id"] == a
    read = herald.api("POST", path(device, f"/{a}/read"), token=tok)
    assert read.status == 200, read
    assert read.json()["id"] == a and iso_ms_utc(read.json()["read_at"])
    dismissed = herald.api("POST", path(device, f"/{a}/dismiss"), token=tok)
    assert dismissed.status == 200 and iso_ms_utc(dismissed.json()["dismissed_at"]), dismissed
    again = herald.api("GET", path(device, f"/{a}"), token=tok).json()
    assert again["read_at"] and again["dismissed_at"]
    deleted = herald.api("DELETE", path(device, f"/{a}"), token=tok)
    assert deleted.status == 204 and deleted.body == b"", deleted
    check_api_error(herald.api("GET", path(device, f"/{a}"), token=tok), 404)
    assert herald.listed_ids(device) == [b]


def test_since_and_limit_page_through_each_notification_exactly_once(herald, h2, device):
    ids = [push(herald, h2, device, alert_payload(f"n{i}")) for i in range(23)]
    seen, since, pages = [], None, 0
    while True:
        res = herald.notifications(device, since=since, limit=5)
        assert len(res["notifications"]) <= 5
        if not res["notifications"]:
            break
        seen += [n["id"] for n in res["notifications"]]
        since = res["cursor"]
        pages += 1
        assert pages < 20
    assert seen == ids, "paging must return every notification once, oldest first"
    assert pages == 5
    # nothing new after the last cursor; a new push appears after it
    assert herald.notifications(device, since=since)["notifications"] == []
    new = push(herald, h2, device)
    assert [n["id"] for n in herald.notifications(device, since=since)["notifications"]] == [new]


def test_collapse_id_replaces_the_earlier_notification(herald, h2, device):
    with SSEClient(herald.api_url, device.device_id, device.user_token) as sse:
        assert sse.status == 200
        sse.wait_connected()
        first = push(herald, h2, device, alert_payload("Score", "1-0"), collapse_id="match")
        other = push(herald, h2, device, alert_payload("Other", "x"), collapse_id="other")
        second = push(herald, h2, device, alert_payload("Score", "2-0"), collapse_id="match")
        listed = herald.all_notifications(device)
        assert sorted(n["id"] for n in listed) == sorted([other, second])
        assert [n["alert"]["body"] for n in listed if n["id"] == second] == ["2-0"]
        events = sse.collect(4, timeout=5)
    kinds = [(e.event, e.notification_id) for e in events]
    assert ("notification", first) in kinds and ("notification", second) in kinds, kinds
    assert ("removed", first) in kinds, f"the stream must say the collapsed one was removed: {kinds}"
    assert kinds.index(("removed", first)) > kinds.index(("notification", first))


def test_collapse_id_is_per_app(herald, h2, device):
    app2 = herald.new_app(herald.demo["team_id"])
    token2 = herald.new_token(device.device_id, app2)
    a = push(herald, h2, device, collapse_id="same")
    st = h2.push(token2, herald.headers(topic=app2, collapse_id="same"), alert_payload())
    assert st.status == 200
    assert len(herald.all_notifications(device)) == 2, "another app's collapse id must not replace"
    assert a in herald.listed_ids(device)


def test_expiration_zero_without_a_session_is_not_stored(herald, h2, device):
    push(herald, h2, device, expiration=0)
    assert herald.all_notifications(device) == []


def test_expiration_zero_with_a_session_is_delivered_to_it(herald, h2, device):
    with SSEClient(herald.api_url, device.device_id, device.user_token) as sse:
        assert sse.status == 200
        sse.wait_connected()
        apns_id = push(herald, h2, device, alert_payload("now", "or never"), expiration=0)
        [ev] = sse.collect(1, timeout=3)
    assert ev.event == "notification" and ev.notification_id == apns_id


def test_expiration_in_the_past_is_never_listed(herald, h2, device):
    with SSEClient(herald.api_url, device.device_id, device.user_token) as sse:
        sse.wait_connected()
        push(herald, h2, device, expiration=int(time.time()) - 60)
        marker = push(herald, h2, device)
        events = sse.collect(1, timeout=3)
        assert [e.notification_id for e in events] == [marker], "the expired push must not be streamed"
    assert herald.listed_ids(device) == [marker]


# ---- errors -----------------------------------------------------------------------------------

@pytest.mark.parametrize("limit", ["abc", "-1", "1.5"])
def test_bad_limit_is_a_400_json_error(herald, device, limit):
    check_api_error(herald.api("GET", query(path(device), limit=limit), token=device.user_token), 400)


def test_bad_since_is_a_400_json_error(herald, device):
    check_api_error(herald.api("GET", query(path(device), since="not-a-cursor"), token=device.user_token), 400)


def test_unknown_notification_is_a_404_json_error(herald, device):
    for method, suffix in [("GET", ""), ("POST", "/read"), ("POST", "/dismiss"), ("DELETE", "")]:
        res = herald.api(method, path(device, f"/{new_apns_id()}{suffix}"), token=device.user_token)
        check_api_error(res, 404)


def test_missing_and_wrong_user_token_are_401_json_errors(herald, device):
    check_api_error(herald.api("GET", path(device)), 401)
    check_api_error(herald.api("GET", path(device), token="wrong-token"), 401)
    check_api_error(herald.api("GET", path(device), headers={"Authorization": "Basic dTpw"}), 401)


def test_admin_routes_refuse_user_tokens_and_no_token(herald, device):
    for token in (None, device.user_token, "nope"):
        res = herald.api("POST", "/v1/admin/users", body={"name": "intruder"}, token=token)
        assert res.status in (401, 403), res
        check_api_error(res, res.status)


def mutate_id(device_id: str) -> str:
    """Another id of the same shape (digits stay digits, hex letters stay hex letters)."""
    out = []
    for ch in device_id:
        if ch.isdigit():
            out.append(random.choice(string.digits))
        elif ch in "abcdef":
            out.append(random.choice("abcdef"))
        elif ch in "ABCDEF":
            out.append(random.choice("ABCDEF"))
        else:
            out.append(ch)
    new = "".join(out)
    return new if new != device_id else mutate_id(device_id)


def test_another_users_device_looks_like_a_missing_device(herald, h2, device):
    # Given user A's device with a notification, and user B with their own device
    a_id = push(herald, h2, device)
    b = herald.new_device()
    ghost = mutate_id(device.device_id)
    requests = [("GET", "/notifications"), ("GET", f"/notifications/{a_id}"), ("POST", f"/notifications/{a_id}/read"),
                ("POST", f"/notifications/{a_id}/dismiss"), ("DELETE", f"/notifications/{a_id}"), ("GET", "/stream")]
    for method, suffix in requests:
        # When B uses their token on A's device
        foreign = herald.api(method, f"/v1/devices/{device.device_id}{suffix}", token=b.user_token,
                             headers={"Accept": "text/event-stream"} if suffix == "/stream" else None)
        missing = herald.api(method, f"/v1/devices/{ghost}{suffix}", token=b.user_token,
                             headers={"Accept": "text/event-stream"} if suffix == "/stream" else None)
        # Then it is exactly like a device that does not exist
        check_api_error(foreign, 404, "device_not_found")
        check_api_error(missing, 404, "device_not_found")
        assert foreign.body.replace(device.device_id.encode(), b"ID") == missing.body.replace(ghost.encode(), b"ID"), \
            (method, suffix, foreign.body, missing.body)
    # and A's notification is untouched
    n = herald.api("GET", path(device, f"/{a_id}"), token=device.user_token).json()
    assert n["read_at"] is None and n["dismissed_at"] is None


def test_websocket_and_sse_refuse_another_users_token(herald, device):
    b = herald.new_device()
    sse = SSEClient(herald.api_url, device.device_id, b.user_token, token_in_query=True)
    assert sse.status == 404, (sse.status, sse.error_body)


def test_admin_errors_are_json(herald):
    check_api_error(herald.api("DELETE", f"/v1/admin/tokens/{'ab' * 32}", token=herald.admin_token), 404)
    res = herald.api("POST", "/v1/admin/devices", body={"user_id": "no-such-user"}, token=herald.admin_token)
    assert 400 <= res.status < 500
    check_api_error(res, res.status)
    res = herald.api("POST", "/v1/admin/tokens", body={"device_id": "no-such-device", "bundle_id": herald.topic},
                     token=herald.admin_token)
    assert 400 <= res.status < 500
    check_api_error(res, res.status)
    res = herald.api("POST", "/v1/admin/users", body=b"{not json", token=herald.admin_token)
    check_api_error(res, 400)
