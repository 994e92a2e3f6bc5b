"""The README tour's app (`herald-example-app`, Examples/ReminderApp): Apple's UserNotifications API on
Linux against the real server — it asks permission (answered here as the person would, with `herald
authorize`), registers the seeds' category, schedules a calendar notification, delivers one at once,
and prints the responses the person gives."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

from herald_support import H2Client, herald_bin, listed_one, push_ok


def example_app_bin() -> str:
    return str(Path(herald_bin()).parent / "herald-example-app")


def start_example_app(herald, credential: str):
    """`herald-example-app --now --responses 2` as the app on the credential's device; returns the
    process and `expect_line(prefix)`, which waits (20 s) for the app to print a line so starting."""
    env = dict(os.environ, HERALD_URL=herald.api_url, HERALD_APP_CREDENTIAL=credential, TZ="UTC")
    app = subprocess.Popen([example_app_bin(), "--now", "--responses", "2"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, bufsize=1)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l.rstrip("\n")) for l in app.stdout], daemon=True).start()

    def expect_line(prefix: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                continue
            if line.startswith(prefix):
                return line
        raise AssertionError(f"the app printed no line starting with {prefix!r}; stderr: {app.stderr.read()[-500:]!r}"
                             if app.poll() is not None else f"the app printed no line starting with {prefix!r}")

    return app, expect_line


def test_the_example_app_asks_schedules_and_prints_responses(herald):
    device = herald.new_device()
    credential = herald.app_credential(device.device_id)
    app, expect_line = start_example_app(herald, credential)

    def authorize(*args):
        out = subprocess.run([herald_bin(), "authorize", "--device", device.device_id, "--url", herald.api_url,
                              "--token", device.user_token, *args], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    try:
        expect_line("asking for permission")
        deadline = time.monotonic() + 20
        requests = []
        while not requests and time.monotonic() < deadline:
            requests = authorize()["requests"]
            time.sleep(0.1)
        assert requests and requests[0]["options"] == ["badge", "sound", "alert"], requests
        authorize(requests[0]["id"], "--allow")
        expect_line("authorization granted")
        scheduled = expect_line("scheduled daily-update")
        assert scheduled.endswith("T08:00:00Z"), scheduled
        expect_line("delivered comment-now")
        expect_line("waiting for responses")

        # The server holds what the app did: its category, its pending request, the notification.
        categories = herald.api("GET", "/v1/app/categories", token=credential).json()["categories"]
        assert [a["icon"] for a in categories[0]["actions"]] == [
            {"system_image_name": "hand.thumbsup"}, {"template_image_name": "text.bubble"}]
        pending = herald.api("GET", "/v1/app/requests", token=credential).json()["requests"]
        assert [p["identifier"] for p in pending] == ["daily-update"]
        [n] = herald.all_notifications(device)
        assert n["alert"]["title"] == "New comment"
        assert [a["identifier"] for a in n["decision"]["actions"]] == ["like-action", "comment-action"]

        # In front of the device, the app decides how a push shows (willPresent): it asks for a banner.
        r = herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token,
                       body={"locked": False, "foreground_app": {"bundle_id": device.bundle_id}})
        assert r.status == 200, r
        h2 = H2Client(herald.apns_url)
        try:
            apns_id = push_ok(herald, h2, device, {"aps": {"alert": {"title": "Breaking", "body": "b"},
                                                           "sound": "default"}})
        finally:
            h2.close()
        assert expect_line("will present") == f"will present {apns_id} Breaking"
        pushed = listed_one(herald, device, apns_id)
        assert pushed["decision"]["disposition"] == "alerted", pushed["decision"]
        assert "foreground-will-present" in pushed["decision"]["reason_codes"], pushed["decision"]

        path = f"/v1/devices/{device.device_id}/notifications/{n['id']}/response"
        r = herald.api("POST", path, token=device.user_token, body={"action_identifier": "like-action"})
        assert r.status == 201, r
        assert expect_line("response comment-now") == "response comment-now like-action"
        r = herald.api("POST", path, token=device.user_token,
                       body={"action_identifier": "comment-action", "user_text": "Nice!"})
        assert r.status == 201, r
        assert expect_line("response comment-now") == "response comment-now comment-action text=Nice!"
        assert app.wait(timeout=10) == 0
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()


def test_the_example_app_says_what_to_set_without_a_server():
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    out = subprocess.run([example_app_bin()], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert "HERALD_URL" in out.stderr and "HERALD_APP_CREDENTIAL" in out.stderr, out.stderr[-800:]
