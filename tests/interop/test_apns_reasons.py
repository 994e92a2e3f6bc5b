"""Every APNs error reason of the contract's order of checks, as a provider sees it through curl:
h2c with prior knowledge, HTTP/2 over TLS (ALPN h2) and cleartext HTTP/1.1 — same status, same reason."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Callable

import pytest

from herald_support import (
    TRANSPORTS, alert_payload, apns_headers, as_body, curl, make_jwt, new_apns_id, new_p256_pem, payload_of_size,
    random_hex_token,
)

DEFAULT = object()


@dataclass
class Req:
    path: str
    headers: list[tuple[str, str]]
    body: bytes | None
    method: str | None = None
    apns_id: str | None = None


@pytest.fixture(scope="module")
def world(herald):
    """Teams, keys, apps and tokens that the error cases need (created once)."""
    w = SimpleNamespace(env=herald, p=herald.provider, team_a=herald.demo["team_id"])
    w.team_b = herald.new_team()
    w.pb = herald.new_key(w.team_b)
    w.app_b = herald.new_app(w.team_b)
    w.app_a2 = herald.new_app(w.team_a)
    w.dev = herald.new_device()  # receives every rejected request below; its list must stay empty
    w.token_a2 = herald.new_token(w.dev.device_id, w.app_a2)
    # a device has one token per app: a second token for the same app replaces the first, so the
    # unregistered token lives on a device of its own
    w.unreg_token = herald.new_device().device_token
    w.unreg = herald.unregister(w.unreg_token)
    w.scoped = herald.new_key(w.team_a, topics=[w.app_a2])
    w.stranger_pem = new_p256_pem()
    return w


def req(w, *, token: str | None = None, path: str | None = None, method: str | None = None,
        payload=DEFAULT, provider=None, topic=DEFAULT, authorization=None, push_type="alert",
        extra=(), apns_id=DEFAULT, no_auth=False, **kw) -> Req:
    token = w.dev.device_token if token is None else token
    apns_id = new_apns_id() if apns_id is DEFAULT else apns_id
    headers = apns_headers(None if no_auth else (provider or w.p), None, push_type=push_type, apns_id=apns_id,
                           authorization=authorization, extra=extra, **kw)
    if topic is DEFAULT:
        topic = w.env.topic
    if topic is not None:
        headers.insert(1, ("apns-topic", topic))
    body = as_body(alert_payload("rejected", "must not be listed") if payload is DEFAULT else payload)
    return Req(path or f"/3/device/{token}", headers, body, method, apns_id)


def unsigned_jwt(w) -> str:
    from herald_support import b64url
    header = b64url(json.dumps({"alg": "none", "kid": w.p.key_id}).encode())
    claims = b64url(json.dumps({"iss": w.team_a, "iat": int(time.time())}).encode())
    return f"{header}.{claims}."


def two_h():
    return int(time.time()) - 2 * 3600


# name -> (build request, status, reason)
CASES: dict[str, tuple[Callable, int, str]] = {
    "GET": (lambda w: req(w, method="GET", payload=None), 405, "MethodNotAllowed"),
    "PUT": (lambda w: req(w, method="PUT"), 405, "MethodNotAllowed"),
    "path /3/devices/<token>": (lambda w: req(w, path=f"/3/devices/{w.dev.device_token}"), 404, "BadPath"),
    "path /4/device/<token>": (lambda w: req(w, path=f"/4/device/{w.dev.device_token}"), 404, "BadPath"),
    "path /": (lambda w: req(w, path="/"), 404, "BadPath"),
    "empty device token": (lambda w: req(w, path="/3/device/"), 400, "MissingDeviceToken"),
    "apns-topic twice": (lambda w: req(w, extra=[("apns-topic", w.env.topic)]), 400, "DuplicateHeaders"),
    "apns-topic twice, names differing in case": (lambda w: req(w, extra=[("APNS-Topic", w.env.topic)]),
                                                  400, "DuplicateHeaders"),
    "apns-id not a UUID": (lambda w: req(w, apns_id="not-a-uuid"), 400, "BadMessageId"),
    "apns-id without dashes": (lambda w: req(w, apns_id=new_apns_id().replace("-", "")), 400, "BadMessageId"),
    "no authorization": (lambda w: req(w, no_auth=True),
                         403, "MissingProviderToken"),
    "authorization not bearer": (lambda w: req(w, authorization="Basic dXNlcjpwYXNz"), 403, "MissingProviderToken"),
    "bearer garbage": (lambda w: req(w, authorization="bearer not.a.jwt"), 403, "InvalidProviderToken"),
    "unknown key id": (lambda w: req(w, authorization="bearer " + make_jwt(w.p.key_pem, "ZZZZZZZZZZ", w.team_a)),
                       403, "InvalidProviderToken"),
    "wrong signature": (lambda w: req(w, authorization="bearer " + make_jwt(w.stranger_pem, w.p.key_id, w.team_a)),
                        403, "InvalidProviderToken"),
    "key id of team B, iss team A": (
        lambda w: req(w, authorization="bearer " + make_jwt(w.pb.key_pem, w.pb.key_id, w.team_a)),
        403, "UnrelatedKeyIdInToken"),
    "iat 2 h old": (lambda w: req(w, authorization="bearer " + w.p.fresh_token(iat=two_h())),
                    403, "ExpiredProviderToken"),
    "iat 61 min old": (lambda w: req(w, authorization="bearer " + w.p.fresh_token(iat=int(time.time()) - 3660)),
                       403, "ExpiredProviderToken"),
    'JWT with alg "none"': (lambda w: req(w, authorization="bearer " + unsigned_jwt(w)), 403, "InvalidProviderToken"),
    "no apns-topic": (lambda w: req(w, topic=None), 400, "MissingTopic"),
    "push type banana": (lambda w: req(w, push_type="banana"), 400, "InvalidPushType"),
    "priority 7": (lambda w: req(w, priority=7), 400, "BadPriority"),
    "priority abc": (lambda w: req(w, priority="abc"), 400, "BadPriority"),
    "background with priority 10": (
        lambda w: req(w, push_type="background", priority=10, payload={"aps": {"content-available": 1}}),
        400, "BadPriority"),
    "background with priority 1": (
        lambda w: req(w, push_type="background", priority=1, payload={"aps": {"content-available": 1}}),
        400, "BadPriority"),
    "expiration abc": (lambda w: req(w, expiration="abc"), 400, "BadExpirationDate"),
    "expiration -1": (lambda w: req(w, expiration="-1"), 400, "BadExpirationDate"),
    "collapse id 65 bytes": (lambda w: req(w, collapse_id="c" * 65), 400, "BadCollapseId"),
    "collapse id of 33 two-byte chars (66 bytes)": (lambda w: req(w, collapse_id="\u00e9" * 33), 400, "BadCollapseId"),
    "voip with bare bundle id": (lambda w: req(w, push_type="voip"), 400, "BadTopic"),
    "alert with .voip topic": (lambda w: req(w, topic=w.env.topic + ".voip"), 400, "BadTopic"),
    "unknown bundle id": (lambda w: req(w, topic="com.herald.nobody.has.this"), 400, "BadTopic"),
    "app of another team": (lambda w: req(w, topic=w.app_b), 400, "TopicDisallowed"),
    "topic-scoped key on another topic": (lambda w: req(w, provider=w.scoped), 403, "InvalidProviderToken"),
    "odd-length token": (lambda w: req(w, token=random_hex_token()[:-1]), 400, "BadDeviceToken"),
    "non-hex token": (lambda w: req(w, token="zz" * 32), 400, "BadDeviceToken"),
    "unknown token": (lambda w: req(w, token=random_hex_token()), 400, "BadDeviceToken"),
    "token of another app": (lambda w: req(w, token=w.token_a2), 400, "DeviceTokenNotForTopic"),
    "unregistered token": (lambda w: req(w, token=w.unreg_token), 410, "Unregistered"),
    "empty body": (lambda w: req(w, payload=b""), 400, "PayloadEmpty"),
    "alert 4097 bytes": (lambda w: req(w, payload=payload_of_size(4097)), 413, "PayloadTooLarge"),
    "voip 5121 bytes": (lambda w: req(w, push_type="voip", topic=w.env.topic + ".voip",
                                      payload=payload_of_size(5121, "voip")), 413, "PayloadTooLarge"),
    "malformed JSON": (lambda w: req(w, payload=b'{"aps":{"alert":"x"}'), 400, "BadPayload"),
    "JSON array": (lambda w: req(w, payload=b'[1,2]'), 400, "BadPayload"),
    "aps missing": (lambda w: req(w, payload={"hello": "world"}), 400, "BadPayload"),
    "aps not an object": (lambda w: req(w, payload={"aps": "x"}), 400, "BadPayload"),
    "alert of wrong type": (lambda w: req(w, payload={"aps": {"alert": 5}}), 400, "BadPayload"),
}


def check_error(res, status: int, reason: str, sent: Req):
    assert (res.status, res.reason) == (status, reason), res
    body = res.json()
    assert isinstance(body, dict) and body.get("reason") == reason, body
    ctype = res.header("content-type") or ""
    assert ctype.startswith("application/json"), f"content-type {ctype!r}"
    if reason != "BadMessageId":
        assert res.header("apns-id") == sent.apns_id, f"apns-id not echoed: {res.headers}"
    if status == 410:
        assert isinstance(body.get("timestamp"), int) and not isinstance(body["timestamp"], bool), body


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("case", list(CASES))
def test_apns_error_reason(herald, world, case, transport):
    build, status, reason = CASES[case]
    r = build(world)
    res = curl(transport, herald.urls, r.path, r.headers, r.body, method=r.method, ca_path=herald.ca_path)
    check_error(res, status, reason, r)


@pytest.mark.parametrize("transport", ("h2c", "tls-http1"))
def test_unregistered_timestamp_is_the_unregistration_time_in_ms(herald, world, transport):
    # Given a token unregistered through the admin API
    unregistered_at = world.unreg["unregistered_at"]
    from datetime import datetime
    expected_ms = int(datetime.fromisoformat(unregistered_at.replace("Z", "+00:00")).timestamp() * 1000)
    # When a provider pushes to it
    r = req(world, token=world.unreg_token)
    res = curl(transport, herald.urls, r.path, r.headers, r.body, ca_path=herald.ca_path)
    # Then 410 Unregistered carries the time of unregistration in ms since the epoch
    assert res.status == 410 and res.reason == "Unregistered", res
    assert abs(res.json()["timestamp"] - expected_ms) <= 1, (res.json(), unregistered_at)


# The order of checks: when a request breaks two rules, the earlier check's reason wins.
PRECEDENCE = {
    "GET on a bad path": (lambda w: req(w, method="GET", payload=None, path="/nope"), 405, "MethodNotAllowed"),
    "bad path + no auth": (lambda w: req(w, path="/3/devices/x", authorization="Basic x"), 404, "BadPath"),
    "duplicate header + bad apns-id": (lambda w: req(w, apns_id="nope", extra=[("apns-topic", "x")]),
                                       400, "DuplicateHeaders"),
    "bad apns-id + no auth": (lambda w: req(w, apns_id="nope", authorization="Basic x"), 400, "BadMessageId"),
    "no auth + no topic": (lambda w: req(w, authorization="Basic x", topic=None), 403, "MissingProviderToken"),
    "expired token + no topic": (lambda w: req(w, authorization="bearer " + w.p.fresh_token(iat=two_h()),
                                               topic=None), 403, "ExpiredProviderToken"),
    "no topic + bad push type": (lambda w: req(w, topic=None, push_type="banana"), 400, "MissingTopic"),
    "bad push type + bad priority": (lambda w: req(w, push_type="banana", priority=7), 400, "InvalidPushType"),
    "bad priority + bad expiration": (lambda w: req(w, priority=7, expiration="x"), 400, "BadPriority"),
    "bad expiration + long collapse id": (lambda w: req(w, expiration="x", collapse_id="c" * 65),
                                          400, "BadExpirationDate"),
    "long collapse id + unknown topic": (lambda w: req(w, collapse_id="c" * 65, topic="com.nobody.x"),
                                         400, "BadCollapseId"),
    "unknown topic + bad token": (lambda w: req(w, topic="com.nobody.x", token="zz"), 400, "BadTopic"),
    "other team's app + bad token": (lambda w: req(w, topic=w.app_b, token="zz"), 400, "TopicDisallowed"),
    "bad token + empty body": (lambda w: req(w, token="abc", payload=b""), 400, "BadDeviceToken"),
    "unregistered + too large": (lambda w: req(w, token=w.unreg_token, payload=payload_of_size(5000)),
                                 410, "Unregistered"),
    "empty body on another app's token": (lambda w: req(w, token=w.token_a2, payload=b""),
                                          400, "DeviceTokenNotForTopic"),
    "too large + malformed": (lambda w: req(w, payload=b"{" + b" " * 5000), 413, "PayloadTooLarge"),
}


@pytest.mark.parametrize("case", list(PRECEDENCE))
def test_apns_order_of_checks(herald, world, case):
    build, status, reason = PRECEDENCE[case]
    r = build(world)
    res = curl("h2c", herald.urls, r.path, r.headers, r.body, method=r.method)
    check_error(res, status, reason, r)


def test_rejected_requests_leave_the_device_list_empty(herald, world):
    # Given a fresh device, when requests addressed to it are rejected for many reasons
    fresh = herald.new_device()
    cases = ["GET", "apns-topic twice", "apns-id not a UUID", "no authorization", "wrong signature",
             "iat 2 h old", "no apns-topic", "push type banana", "priority 7", "expiration abc",
             "collapse id 65 bytes", "voip with bare bundle id", "app of another team",
             "topic-scoped key on another topic", "empty body", "alert 4097 bytes", "malformed JSON",
             "alert of wrong type"]
    for case in cases:
        r = CASES[case][0](world)
        r.path = r.path.replace(world.dev.device_token, fresh.device_token)
        res = curl("h2c", herald.urls, r.path, r.headers, r.body, method=r.method)
        assert (res.status, res.reason) == CASES[case][1:], (case, res)
    # Then nothing was stored
    assert herald.all_notifications(fresh) == []
