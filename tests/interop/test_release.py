"""Held notifications released quietly, through the real binary: when a Focus ends or an app leaves
the Scheduled Summary, what they held is listed without a banner or sound (iOS does not alert again),
in the list, the live stream and the decision endpoint."""

from __future__ import annotations

import time

import pytest

from herald_support import listed_one, push_ok, SSEClient


def released_event(stream: SSEClient, apns_id: str, timeout: float = 10) -> dict:
    """The stream's notification event for `apns_id` once it is no longer held."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no release of {apns_id} on the stream")
        ev = stream.next(left)
        if ev.event == "notification" and ev.json()["id"] == apns_id and not ev.json()["disposition"].startswith("held"):
            return ev.json()


def assert_quiet(decision: dict, badge: bool):
    assert decision["disposition"] == "listedSilently", decision
    assert decision["banner"] == "none", decision
    assert decision["sound"]["plays"] is False, decision
    assert decision["announce"] is False, decision
    assert decision["lock_screen"] is True and decision["notification_center"] is True, decision
    assert decision["badge"] is badge, decision


def test_a_focus_ending_releases_what_it_held_quietly(herald, h2, device):
    # Given the Work Focus on, holding a push with a sound and a badge
    r = herald.api("PUT", "/v1/me/focus-modes/work", token=device.user_token, body={})
    assert r.status in (200, 201), r
    assert herald.api("POST", "/v1/me/focus-modes/work/on", token=device.user_token).status == 200
    held = push_ok(herald, h2, device, {"aps": {"alert": {"title": "Standup", "body": "moved"}, "sound": "default", "badge": 2}})
    assert listed_one(herald, device, held)["disposition"] == "heldForFocus"
    with SSEClient(herald.api_url, device.device_id, device.user_token) as stream:
        time.sleep(0.2)
        # When the Focus is turned off
        assert herald.api("POST", "/v1/me/focus-modes/work/off", token=device.user_token).status == 200
        # Then the stream gets it listed quietly, its badge applied
        n = released_event(stream, held)
    assert n["disposition"] == "listedSilently"
    assert_quiet(n["decision"], badge=True)
    assert listed_one(herald, device, held)["disposition"] == "listedSilently"
    badges = herald.api("GET", f"/v1/devices/{device.device_id}/badges", token=device.user_token).json()
    assert badges["total"] == 2, badges
    r = herald.api("GET", f"/v1/notifications/{held}/decision", token=device.user_token)
    assert r.json()["decision"]["banner"] == "none" and r.json()["decision"]["sound"]["plays"] is False
    sentences = {x["code"]: x["sentence"] for x in r.json()["reasons"]}
    assert sentences["released-focus-ended"] == ("Released quietly when the Work Focus ended or changed: "
                                                 "listed without a banner or sound, as what a Focus held does not alert again.")


def test_an_app_leaving_the_summary_releases_what_it_held_quietly(herald, h2, device):
    # Given the app in the Scheduled Summary, holding a push
    r = herald.api("PUT", "/v1/me/summary", token=device.user_token, body={"times": ["08:00"], "apps": [device.bundle_id]})
    assert r.status == 200, r
    held = push_ok(herald, h2, device, {"aps": {"alert": {"title": "Sale", "body": "50% off"}, "sound": "default"}})
    assert listed_one(herald, device, held)["disposition"] == "heldForSummary"
    with SSEClient(herald.api_url, device.device_id, device.user_token) as stream:
        time.sleep(0.2)
        # When the app leaves the summary
        r = herald.api("PUT", "/v1/me/summary", token=device.user_token, body={"apps": []})
        assert r.status == 200, r
        n = released_event(stream, held)
    assert_quiet(n["decision"], badge=False)
    r = herald.api("GET", f"/v1/notifications/{held}/decision", token=device.user_token)
    assert r.json()["disposition"] == "listedSilently"
    sentences = {x["code"]: x["sentence"] for x in r.json()["reasons"]}
    assert sentences["released-summary-off"].startswith("Released quietly when Demo left the Scheduled Summary"), sentences
