"""What the device shows (`display`), through the real binary: loc keys resolved in the device's locale
with the app's uploaded plurals, and communication notifications let through by a Focus's allowed people."""

from __future__ import annotations

import pytest

import subprocess

from herald_support import herald_bin, listed_one, push_ok

RUSSIAN_STRINGSDICT = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict><key>NEW_MESSAGES</key><dict>
<key>NSStringLocalizedFormatKey</key><string>%#@messages@</string>
<key>messages</key><dict>
<key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
<key>NSStringFormatValueTypeKey</key><string>d</string>
<key>one</key><string>%d новое сообщение</string>
<key>few</key><string>%d новых сообщения</string>
<key>many</key><string>%d новых сообщений</string>
<key>other</key><string>%d новых сообщения</string>
</dict></dict></dict></plist>
"""


def unlock(herald, device):
    # A device is locked until it says otherwise, and Show Previews is When Unlocked by default.
    r = herald.api("PUT", f"/v1/devices/{device.device_id}/state", body={"locked": False}, token=device.user_token)
    assert r.status == 200, r


def test_a_new_users_preview_is_hidden_while_the_device_is_locked(herald, h2, device):
    # Given a user who saved no preferences: the API says When Unlocked
    r = herald.api("GET", "/v1/me/preferences", token=device.user_token)
    assert r.status == 200, r
    assert r.json()["show_previews"] == "when_unlocked"
    # When a push reaches the (locked) device, its preview is hidden, and the decision says why
    locked = push_ok(herald, h2, device, {"aps": {"alert": {"title": "Sale", "body": "50% off"}}})
    n = listed_one(herald, device, locked)
    assert n["display"] == {"title": None, "subtitle": None, "body": "Notification"}
    r = herald.api("GET", f"/v1/notifications/{locked}/decision", token=device.user_token)
    assert r.json()["decision"]["preview"]["hidden"] is True
    assert {x["code"] for x in r.json()["reasons"]} >= {"previews-hidden-locked"}
    # Once the device is unlocked, the content shows
    unlock(herald, device)
    shown = listed_one(herald, device, push_ok(herald, h2, device, {"aps": {"alert": {"title": "Sale", "body": "50% off"}}}))
    assert shown["display"] == {"title": "Sale", "subtitle": None, "body": "50% off"}


def test_loc_keys_show_in_the_device_locale_with_plurals_and_fall_back_to_the_key(herald, h2, device):
    # Given the app's Russian plurals and a device set to Russian
    herald.admin("PUT", f"/v1/admin/apps/{device.bundle_id}/localizations/ru/Localizable.stringsdict",
                 RUSSIAN_STRINGSDICT.encode())
    r = herald.api("PUT", f"/v1/devices/{device.device_id}/state", body={"locale": "ru", "locked": False},
                   token=device.user_token)
    assert r.status == 200, r
    # When pushes with loc keys arrive
    shown = {}
    for count in (1, 3, 5):
        apns_id = push_ok(herald, h2, device, {"aps": {"alert": {"loc-key": "NEW_MESSAGES", "loc-args": [str(count)],
                                                              "title-loc-key": "NO_SUCH_TITLE"}}})
        shown[count] = listed_one(herald, device, apns_id)
    # Then the device shows them resolved (one / few / many), the missing key as itself; `alert` stays as sent
    assert [shown[c]["display"]["body"] for c in (1, 3, 5)] == \
        ["1 новое сообщение", "3 новых сообщения", "5 новых сообщений"]
    assert shown[5]["display"]["title"] == "NO_SUCH_TITLE"
    assert shown[5]["alert"]["body"] is None


def test_a_plain_push_shows_its_alert(herald, h2, device):
    unlock(herald, device)
    apns_id = push_ok(herald, h2, device, {"aps": {"alert": {"title": "Sale", "body": "50% off"}}})
    n = listed_one(herald, device, apns_id)
    assert n["display"] == {"title": "Sale", "subtitle": None, "body": "50% off"} == n["alert"]
    assert n["decision"]["display"] is None


def test_a_message_from_an_allowed_person_breaks_through_the_focus(herald, h2, device):
    # Given the Work Focus on, allowing only Ana's number
    r = herald.api("PUT", "/v1/me/focus-modes/work", token=device.user_token,
                   body={"allowed_people": [{"type": "phone", "value": "+1 555-010-0200"}]})
    assert r.status in (200, 201), r
    r = herald.api("POST", "/v1/me/focus-modes/work/on", token=device.user_token)
    assert r.status == 200, r
    unlock(herald, device)
    # When Ana's message (her number written another way) and an ordinary push arrive
    message = {"aps": {"alert": {"body": "On my way"}},
               "communication": {"kind": "message", "group": "Lunch crew",
                                 "sender": {"handle": "(555) 010-0200", "handle_type": "phone", "display_name": "Ana"}}}
    from_ana = push_ok(herald, h2, device, message)
    ordinary = push_ok(herald, h2, device, {"aps": {"alert": "Sale"}})
    # Then hers is alerted and shows her name and the group; the other waits for the Focus
    n = listed_one(herald, device, from_ana)
    assert n["disposition"] == "alerted"
    assert n["display"] == {"title": "Ana", "subtitle": "Lunch crew", "body": "On my way"}
    assert listed_one(herald, device, ordinary)["disposition"] == "heldForFocus"
    r = herald.api("GET", f"/v1/notifications/{from_ana}/decision", token=device.user_token)
    assert r.status == 200, r
    sentences = {x["code"]: x["sentence"] for x in r.json()["reasons"]}
    assert sentences["focus-allowed-person"] == "Delivered during the Work Focus: Ana is an allowed person."
    assert r.json()["display"] == n["display"]
    # `herald explain` says it too
    out = subprocess.run([herald_bin(), "explain", from_ana, "--url", herald.api_url, "--token", device.user_token],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert "Shows: Ana | Lunch crew | On my way" in out.stdout.splitlines(), out.stdout
    assert "- Delivered during the Work Focus: Ana is an allowed person. [focus-allowed-person]" in out.stdout, out.stdout


def test_a_malformed_communication_key_is_accepted_and_explained(herald, h2, device):
    apns_id = push_ok(herald, h2, device, {"aps": {"alert": "Hi"}, "communication": {"kind": "fax"}})
    r = herald.api("GET", f"/v1/notifications/{apns_id}/decision", token=device.user_token)
    assert r.status == 200, r
    sentences = {x["code"]: x["sentence"] for x in r.json()["reasons"]}
    assert sentences["communication-invalid"].startswith("Not treated as a message or call:"), sentences


def test_an_unrecognised_interruption_level_is_accepted_treated_as_active_and_explained(herald, h2, device):
    apns_id = push_ok(herald, h2, device, {"aps": {"alert": "Hi", "sound": "default", "interruption-level": "urgent"}})
    n = listed_one(herald, device, apns_id)
    assert n["interruption_level"] == "urgent" and n["disposition"] == "alerted"
    r = herald.api("GET", f"/v1/notifications/{apns_id}/decision", token=device.user_token)
    assert r.status == 200, r
    assert r.json()["decision"]["effective_level"] == "active"
    sentences = {x["code"]: x["sentence"] for x in r.json()["reasons"]}
    assert sentences["interruption-level-unrecognized"] == (
        'Treated as active: the interruption level "urgent" is not one iOS recognises '
        "(passive, active, time-sensitive, critical)."), sentences
