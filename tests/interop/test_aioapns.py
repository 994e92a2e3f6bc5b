"""aioapns 4 — a real APNs client, unchanged, pointed at Herald's TLS listener (no ALPN, `host` header,
exact apns-id matching, one JSON DATA frame per error)."""

from __future__ import annotations

import asyncio
import ssl
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import aioapns
import aioapns.connection
from aioapns import APNs, NotificationRequest, PushType

from herald_support import payload_of_size, random_hex_token


@pytest.fixture
def aioapns_at_herald(herald, monkeypatch):
    port = urlsplit(herald.apns_tls_url).port
    monkeypatch.setattr(aioapns.connection.APNsDevelopmentClientProtocol, "APNS_SERVER", "127.0.0.1")
    monkeypatch.setattr(aioapns.connection.APNsTLSClientProtocol, "APNS_PORT", port)

    def make(topic: str | None = None) -> APNs:
        return APNs(key=Path(herald.demo["key_path"]).read_text(), key_id=herald.demo["key_id"],
                    team_id=herald.demo["team_id"], topic=topic or herald.topic, use_sandbox=True,
                    ssl_context=ssl.create_default_context(cafile=herald.ca_path), max_connection_attempts=1)
    return make


def run(coro, timeout: float = 60):
    async def bounded():
        return await asyncio.wait_for(coro, timeout)
    return asyncio.run(bounded())


def test_aioapns_alert_is_delivered_to_the_device_list(herald, device, aioapns_at_herald):
    apns_id = str(uuid.uuid4())

    async def go():
        client = aioapns_at_herald()
        try:
            return await client.send_notification(NotificationRequest(
                device_token=device.device_token, notification_id=apns_id,
                message={"aps": {"alert": {"title": "From aioapns", "body": "hi"}, "badge": "1"}},
                push_type=PushType.ALERT))
        finally:
            client.pool.close()

    result = run(go())
    assert result.is_successful, (result.status, result.description)
    assert result.notification_id == apns_id
    r = herald.api("GET", f"/v1/devices/{device.device_id}/notifications", token=device.user_token)
    assert r.status == 200
    listed = r.json()["notifications"]
    assert [n["id"] for n in listed] == [apns_id]
    assert listed[0]["alert"]["title"] == "From aioapns"


def test_aioapns_sees_the_error_reasons(herald, device, aioapns_at_herald):
    app2 = herald.new_app(herald.demo["team_id"])
    other_app_token = herald.new_token(device.device_id, app2)
    gone = herald.new_device().device_token
    herald.unregister(gone)
    msg = {"aps": {"alert": "x"}}
    cases = [
        (random_hex_token(), msg, "400", "BadDeviceToken"),
        (other_app_token, msg, "400", "DeviceTokenNotForTopic"),
        (gone, msg, "410", "Unregistered"),
        (device.device_token, {"aps": {"alert": "y" * 4100}}, "413", "PayloadTooLarge"),
    ]

    async def go():
        client = aioapns_at_herald()
        try:
            return await asyncio.gather(*[
                client.send_notification(NotificationRequest(device_token=t, message=m, push_type=PushType.ALERT))
                for t, m, _, _ in cases])
        finally:
            client.pool.close()

    results = run(go())
    got = [(r.status, r.description) for r in results]
    assert got == [(s, reason) for _, _, s, reason in cases]
    assert isinstance(results[2].timestamp, int), "410 must carry an integer timestamp"
    assert herald.all_notifications(device) == []


def test_aioapns_voip_5120_bytes_ok_5121_too_large(herald, device, aioapns_at_herald):
    import json
    # aioapns sends json.dumps(message) with the default separators (", ", ": ")
    ok = json.loads(payload_of_size(5120, "voip", separators=(", ", ": ")))
    too_big = json.loads(payload_of_size(5121, "voip", separators=(", ", ": ")))
    assert len(json.dumps(ok, ensure_ascii=False).encode()) == 5120

    async def go():
        client = aioapns_at_herald(herald.topic + ".voip")
        try:
            return await asyncio.gather(*[client.send_notification(NotificationRequest(
                device_token=device.device_token, message=m, push_type=PushType.VOIP)) for m in (ok, too_big)])
        finally:
            client.pool.close()

    a, b = run(go())
    assert a.is_successful, (a.status, a.description)
    assert (b.status, b.description) == ("413", "PayloadTooLarge")


def test_aioapns_200_concurrent_sends_on_one_client_all_succeed(herald, device, aioapns_at_herald):
    ids = [str(uuid.uuid4()) for _ in range(200)]

    async def go():
        client = aioapns_at_herald()
        try:
            results = await asyncio.gather(*[client.send_notification(NotificationRequest(
                device_token=device.device_token, notification_id=i, message={"aps": {"alert": f"n{n}"}},
                push_type=PushType.ALERT)) for n, i in enumerate(ids)])
            return results, len(client.pool.connections)
        finally:
            client.pool.close()

    results, connections = run(go())
    failed = [(r.status, r.description) for r in results if not r.is_successful]
    assert not failed, failed[:5]
    assert [r.notification_id for r in results] == ids
    assert connections == 1, f"aioapns needed {connections} connections (server advertised few streams?)"
    assert sorted(herald.listed_ids(device)) == sorted(ids)
