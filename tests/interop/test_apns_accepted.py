"""Requests real providers send that must be accepted (200), through curl on all three transports."""

from __future__ import annotations

import re
import time
from types import SimpleNamespace

import pytest

from herald_support import (
    TRANSPORTS, alert_payload, apns_headers, as_body, curl, make_jwt, make_jwt_with_openssl, new_apns_id,
    payload_of_size, random_hex_token,
)

UUID_LOWER = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

SUFFIX = {
    "alert": "", "background": "", "voip": ".voip", "complication": ".complication",
    "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity",
    "location": ".location-query", "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets",
    "controls": ".push-type.controls",
}


@pytest.fixture(scope="module")
def acc(herald):
    w = SimpleNamespace(env=herald, p=herald.provider, dev=herald.new_device())
    w.app2 = herald.new_app(herald.demo["team_id"])
    w.token2 = herald.new_token(w.dev.device_id, w.app2)
    w.scoped = herald.new_key(herald.demo["team_id"], topics=[w.app2])
    w.long_token = herald.new_token(herald.new_device().device_id, herald.topic, token=random_hex_token(54))
    return w


def payload_for(push_type: str) -> dict:
    if push_type == "background":
        return {"aps": {"content-available": 1}, "sync": "inbox"}
    if push_type == "liveactivity":
        return {"aps": {"timestamp": int(time.time()), "event": "update", "content-state": {"score": 1}}}
    if push_type in ("widgets", "controls", "location", "fileprovider", "complication"):
        return {"aps": {"content-changed": True}} if push_type == "widgets" else {"aps": {}}
    return alert_payload(f"{push_type} push", "accepted")


def send(w, transport, *, token=None, topic=None, payload=None, provider=None, authorization=None,
         apns_id="new", push_type="alert", scheme=None, capitalize=False, **kw):
    apns_id = new_apns_id() if apns_id == "new" else apns_id
    if scheme:
        authorization = f"{scheme} {(provider or w.p).token}"
    headers = apns_headers(provider or w.p, topic or w.env.topic, push_type=push_type, apns_id=apns_id,
                           authorization=authorization, **kw)
    if capitalize:
        headers = [(k.title(), v) for k, v in headers]
    body = as_body(payload if payload is not None else alert_payload("accepted", transport))
    res = curl(transport, w.env.urls, f"/3/device/{token or w.dev.device_token}", headers, body,
               ca_path=w.env.ca_path)
    return res, apns_id


def check_ok(res, apns_id):
    assert res.status == 200, res
    assert res.body == b"", f"a 200 has no body, got {res.body!r}"
    if apns_id is not None:
        assert res.header("apns-id") == apns_id, res.headers
    assert res.header("apns-unique-id"), f"no apns-unique-id on 200: {res.headers}"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("push_type", list(SUFFIX))
def test_push_type_with_its_topic_suffix_is_accepted(acc, transport, push_type):
    res, apns_id = send(acc, transport, topic=acc.env.topic + SUFFIX[push_type], push_type=push_type,
                        priority=5 if push_type == "background" else None, payload=payload_for(push_type))
    check_ok(res, apns_id)


ACCEPTED = {
    "no apns-push-type header": dict(push_type=None),
    "priority 10": dict(priority=10),
    "priority 5": dict(priority=5),
    "priority 1": dict(priority=1),
    "collapse id of 64 bytes": dict(collapse_id="c" * 64),
    "expiration in an hour": dict(expiration=int(time.time()) + 3600),
    "alert payload of exactly 4096 bytes": dict(payload=payload_of_size(4096)),
    "voip payload of exactly 5120 bytes": dict(payload=payload_of_size(5120, "voip"), push_type="voip",
                                              topic_suffix=".voip"),
    "alert as a string": dict(payload={"aps": {"alert": "just a body"}}),
    'badge as a string "1" (aioapns README)': dict(payload={"aps": {"alert": "x", "badge": "1"}}),
    "mutable-content as 1.0 (APNSwift)": dict(payload={"aps": {"alert": {"title": "t"}, "mutable-content": 1.0}}),
    "unknown keys inside aps": dict(payload={"aps": {"alert": "x", "my-key": [1, 2]}, "custom": {"a": 1}}),
    "critical sound dictionary": dict(payload={"aps": {"alert": "x", "sound": {"critical": 1, "name": "default",
                                                                                 "volume": 0.5}}}),
    "all the documented alert keys": dict(payload={"aps": {
        "alert": {"title": "T", "subtitle": "S", "body": "B", "launch-image": "x.png", "title-loc-key": "K",
                  "title-loc-args": ["a"], "subtitle-loc-key": "SK", "subtitle-loc-args": [], "loc-key": "LK",
                  "loc-args": ["1"], "action-loc-key": "OPEN"},
        "badge": 3, "sound": "default", "thread-id": "t1", "category": "C", "content-available": 1,
        "mutable-content": 1, "target-content-id": "x", "interruption-level": "time-sensitive",
        "relevance-score": 0.5, "filter-criteria": "work"}}),
    # Times are functions, called when the request is made: a value computed when this module is
    # collected was over an hour old by the time a long suite reached the "59 minutes" case.
    "JWT iat as a float (PyAPNs2)": dict(jwt=dict(iat=lambda: time.time())),
    "JWT iat as a string (APNSwift)": dict(jwt=dict(iat=lambda: str(int(time.time())))),
    "JWT with DER signature": dict(jwt=dict(der=True)),
    "JWT with typ and extra claims": dict(jwt=dict(header_extra={"typ": "JWT"}, claims_extra={"aud": "x"})),
    "JWT signed by the openssl CLI (Apple's recipe)": dict(openssl=True),
    "108-char device token (54 bytes)": dict(long_token=True),
    "topic-scoped key on its topic": dict(scoped=True),
    "JWT iat 59 minutes old": dict(jwt=dict(iat=lambda: int(time.time()) - 3540)),
    "authorization scheme written Bearer": dict(scheme="Bearer"),
    "capitalized header names (Apns-Topic, Authorization)": dict(capitalize=True),
}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("case", list(ACCEPTED))
def test_real_world_request_is_accepted(acc, transport, case):
    spec = dict(ACCEPTED[case])
    kw = {}
    if "jwt" in spec:
        p = acc.p
        jwt = {k: (v() if callable(v) else v) for k, v in spec.pop("jwt").items()}
        kw["authorization"] = "bearer " + make_jwt(p.key_pem, p.key_id, p.team_id, **jwt)
    if spec.pop("openssl", False):
        p = acc.p
        assert p.key_path, "demo key_path missing"
        kw["authorization"] = "bearer " + make_jwt_with_openssl(p.key_path, p.key_id, p.team_id)
    if spec.pop("long_token", False):
        kw["token"] = acc.long_token
    if spec.pop("scoped", False):
        kw.update(provider=acc.scoped, topic=acc.app2, token=acc.token2)
    suffix = spec.pop("topic_suffix", "")
    if suffix:
        kw["topic"] = acc.env.topic + suffix
    kw.update(spec)
    res, apns_id = send(acc, transport, **kw)
    check_ok(res, apns_id)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_uppercase_apns_id_is_echoed_byte_for_byte(acc, transport):
    upper = new_apns_id().upper()
    res, _ = send(acc, transport, apns_id=upper)
    check_ok(res, upper)
    # and the notification is stored under an id a client can find again
    got = acc.env.api("GET", f"/v1/devices/{acc.dev.device_id}/notifications/{upper}", token=acc.dev.user_token)
    if got.status != 200:
        got = acc.env.api("GET", f"/v1/devices/{acc.dev.device_id}/notifications/{upper.lower()}",
                          token=acc.dev.user_token)
    assert got.status == 200, got
    assert got.json()["id"].lower() == upper.lower()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_missing_apns_id_is_generated_lowercase(acc, transport):
    res, _ = send(acc, transport, apns_id=None)
    check_ok(res, None)
    generated = res.header("apns-id")
    assert generated and UUID_LOWER.fullmatch(generated), f"generated apns-id {generated!r}"
    got = acc.env.api("GET", f"/v1/devices/{acc.dev.device_id}/notifications/{generated}", token=acc.dev.user_token)
    assert got.status == 200, got


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_accepted_alert_is_in_the_device_list_at_once(herald, transport):
    dev = herald.new_device()
    w = SimpleNamespace(env=herald, p=herald.provider, dev=dev)
    payload = alert_payload("Listed", f"via {transport}", badge=2, sound="default")
    res, apns_id = send(w, transport, payload=payload)
    check_ok(res, apns_id)
    listed = herald.all_notifications(dev)
    assert [n["id"] for n in listed] == [apns_id]
    n = listed[0]
    assert n["payload"] == payload and n["topic"] == herald.topic and n["push_type"] == "alert"
    assert n["alert"]["title"] == "Listed" and n["badge"] == 2 and n["sound"] == "default"
