"""The threads view and app badges of a device, through the API and the `herald threads` /
`herald badges` commands, after pushes over HTTP/2."""

from __future__ import annotations

import json
import subprocess

import pytest

from herald_support import herald_bin, new_apns_id


def push(herald, h2, device, aps: dict) -> str:
    apns_id = new_apns_id()
    st = h2.push(device.device_token, herald.headers(apns_id=apns_id), {"aps": aps})
    assert st.status == 200, st
    return apns_id.lower()


def cli(herald, device, *args) -> tuple[dict, int]:
    out = subprocess.run([herald_bin(), *args, f"--device={device.device_id}", f"--url={herald.api_url}",
                          f"--token={device.user_token}"], capture_output=True, text=True, timeout=30)
    try:
        return json.loads(out.stdout), out.returncode
    except ValueError:
        raise AssertionError(f"`herald {args[0]}` printed no JSON (exit {out.returncode}): "
                             f"stdout={out.stdout!r} stderr={out.stderr[-500:]!r}")


def test_threads_group_a_thread_with_its_summary_line(herald, h2, device):
    # Given two messages in one thread and one without a thread
    first = push(herald, h2, device, {"alert": {"body": "hi"}, "thread-id": "chat", "summary-arg": "Ana"})
    second = push(herald, h2, device, {"alert": {"body": "there"}, "thread-id": "chat", "summary-arg": "Bo"})
    lone = push(herald, h2, device, {"alert": {"body": "lone"}})
    # When the device's threads are asked for, over the API and with `herald threads`
    res = herald.api("GET", f"/v1/devices/{device.device_id}/threads", token=device.user_token)
    assert res.status == 200, res
    printed, code = cli(herald, device, "threads")
    assert code == 0 and printed == res.json()
    # Then the newest group first; the thread shows its newest message and counts the other one
    groups = printed["threads"]
    assert [g["notification"]["id"] for g in groups] == [lone, second], groups
    thread = groups[1]
    assert thread["thread_id"] == "chat" and thread["count"] == 2 and thread["other_ids"] == [first]
    assert thread["summary"] == "1 more notification" and thread["summary_arguments"] == ["Ana"]
    assert groups[0]["thread_id"] is None and groups[0]["summary"] is None


def test_badges_follow_the_latest_push_and_zero_clears(herald, h2, device):
    push(herald, h2, device, {"alert": {"body": "one"}, "badge": 3})
    printed, code = cli(herald, device, "badges")
    assert code == 0 and printed == {"total": 3, "apps": [{"bundle_id": device.bundle_id, "badge": 3}]}
    push(herald, h2, device, {"alert": {"body": "two"}, "badge": 0})
    res = herald.api("GET", f"/v1/devices/{device.device_id}/badges", token=device.user_token)
    assert res.status == 200 and res.json() == {"total": 0, "apps": []}, res


def test_another_users_device_is_not_found(herald, device):
    stranger = herald.new_device()
    for path in ("threads", "badges"):
        res = herald.api("GET", f"/v1/devices/{device.device_id}/{path}", token=stranger.user_token)
        assert res.status == 404 and res.json()["error"]["code"] == "device_not_found", res
    res = herald.api("GET", f"/v1/devices/{device.device_id}/threads?limit=0", token=device.user_token)
    assert res.status == 400 and res.json()["error"]["code"] == "invalid_parameter", res
