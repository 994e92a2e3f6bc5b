"""The `herald push` and `herald watch` commands, as a developer runs them in a terminal."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from herald_support import H2Client, alert_payload, herald_bin, random_hex_token, wait_until


def herald_push(herald, url: str, device_token: str, title: str, body: str, *, tls: bool) -> tuple[dict, int]:
    d = herald.demo
    cmd = [herald_bin(), "push", "--url", url, "--topic", herald.topic, "--device", device_token,
           "--title", title, "--body", body, "--key", d["key_path"], "--key-id", d["key_id"], "--team-id", d["team_id"]]
    if tls:
        cmd += ["--ca", herald.ca_path]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    try:
        result = json.loads(out.stdout)
    except ValueError:
        raise AssertionError(f"`herald push` printed no JSON (exit {out.returncode}): "
                             f"stdout={out.stdout!r} stderr={out.stderr[-500:]!r}")
    return result, out.returncode


@pytest.mark.parametrize("tls", [False, True], ids=["h2c", "tls"])
def test_herald_push_delivers_and_prints_json(herald, device, tls):
    title = f"CLI {uuid.uuid4().hex[:6]}"
    url = herald.apns_tls_url if tls else herald.apns_url
    result, code = herald_push(herald, url, device.device_token, title, "from the terminal", tls=tls)
    assert {"status", "reason", "apns_id"} <= result.keys(), result
    assert result["status"] == 200 and not result["reason"], result
    assert code == 0
    [n] = herald.all_notifications(device)
    assert n["id"] == result["apns_id"] and n["alert"]["title"] == title and n["alert"]["body"] == "from the terminal"


def test_herald_push_reports_the_apns_reason(herald):
    result, code = herald_push(herald, herald.apns_tls_url, random_hex_token(), "t", "b", tls=True)
    assert result["status"] == 400 and result["reason"] == "BadDeviceToken", result
    assert result.get("apns_id"), result
    assert code == 1, "`herald push` exits 1 when the push is refused (its --help says so)"


class Watch:
    """`herald watch` as a subprocess; stdout and stderr lines are collected on threads."""

    def __init__(self, herald, device, *extra):
        # Unlocked, so previews show: watch prints what the device shows, and a new device is locked
        # with Show Previews "when unlocked".
        r = herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
        assert r.status == 200, r
        self.proc = subprocess.Popen([herald_bin(), "watch", "--device", device.device_id, "--url", herald.api_url,
                                      "--token", device.user_token, *extra], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.out: "queue.Queue[str]" = queue.Queue()
        self.err: list[str] = []
        threading.Thread(target=lambda: [self.out.put(l) for l in self.proc.stdout], daemon=True).start()
        threading.Thread(target=lambda: [self.err.append(l) for l in self.proc.stderr], daemon=True).start()

    def wait_connected(self, timeout=15):
        deadline = time.monotonic() + timeout
        while not any("watching" in l for l in self.err):
            assert self.proc.poll() is None, f"herald watch exited {self.proc.returncode}: {self.err}"
            assert time.monotonic() < deadline, f"herald watch did not report a connection: {self.err}"
            time.sleep(0.05)

    def line(self, timeout):
        try:
            return self.out.get(timeout=timeout)
        except queue.Empty:
            return None

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("herald watch did not exit on SIGTERM")


def test_herald_watch_prints_each_notification_as_it_arrives(herald, device):
    w = Watch(herald, device)
    try:
        w.wait_connected()
        with H2Client(herald.apns_url) as c:
            for title in ("first-watch", "second-watch"):
                t0 = time.monotonic()
                st = c.push(device.device_token, herald.headers(), alert_payload(title, "watched"))
                assert st.status == 200
                line = w.line(3)
                assert line is not None, f"herald watch printed nothing for {title!r} within 3s"
                assert title in line, f"watch line does not show the title: {line!r}"
                assert time.monotonic() - t0 < 2
    finally:
        w.stop()


def test_herald_watch_without_cursor_prints_only_new_notifications(herald, device):
    # `herald watch --help`: "--cursor: Print the changes after this cursor first (default: only new ones)."
    with H2Client(herald.apns_url) as c:
        assert c.push(device.device_token, herald.headers(), alert_payload("old-one", "before")).status == 200
        w = Watch(herald, device)
        try:
            w.wait_connected()
            assert c.push(device.device_token, herald.headers(), alert_payload("new-one", "after")).status == 200
            line = w.line(3)
            assert line is not None and "new-one" in line, f"first line printed: {line!r}"
        finally:
            w.stop()


def test_herald_watch_with_cursor_prints_the_changes_after_it(herald, device):
    # Unlocked before the pushes: decided locked, their previews would be hidden (as watch shows).
    herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    with H2Client(herald.apns_url) as c:
        for t in ("a-one", "b-two"):
            assert c.push(device.device_token, herald.headers(), alert_payload(t, "x")).status == 200
    first = herald.notifications(device, limit=1)
    w = Watch(herald, device, "--cursor", first["cursor"])
    try:
        w.wait_connected()
        line = w.line(3)
        assert line is not None and "b-two" in line, f"first line printed: {line!r}"
    finally:
        w.stop()


def test_herald_watch_in_tmux_answers_actions_and_replies_from_the_keyboard(herald):
    """A person at a terminal: `herald watch` in tmux numbers each notification and lists its
    actions; typed answers reach the app as responses; a hidden preview stays hidden."""
    import shlex
    from urllib.parse import urlsplit
    import http.client

    device = herald.new_device()
    credential = herald.app_credential(device.device_id)
    category = {"identifier": "chat", "actions": [
        {"identifier": "like", "title": "Like"},
        {"identifier": "reply", "title": "Reply", "text_input": {"button_title": "Send", "placeholder": "Message"}}]}
    assert herald.api("PUT", "/v1/app/categories", token=credential, body={"categories": [category]}).status == 200
    assert herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token,
                      body={"locked": False}).status == 200
    session = f"watch-{uuid.uuid4().hex[:8]}"
    command = [str(herald_bin()), "watch", "--url", herald.api_url, "--token", device.user_token,
               "--device", device.device_id]
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "220", "-y", "50", shlex.join(command)],
                   check=True)

    def pane() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-t", session], capture_output=True,
                              text=True).stdout

    def keys(text: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", session, "-l", text], check=True)
        subprocess.run(["tmux", "send-keys", "-t", session, "Enter"], check=True)

    def add(identifier: str, title: str, body: str) -> None:
        r = herald.api("POST", "/v1/app/requests", token=credential, body={
            "identifier": identifier, "content": {"title": title, "body": body, "category_identifier": "chat"}})
        assert r.status in (200, 201), r

    try:
        wait_until(lambda: "watching device" in pane(), timeout=15, what="herald watch connected")
        add("lunch", "Ana", "Lunch at noon?")
        wait_until(lambda: "[1]" in pane() and "1 Like · 2 Reply… · o open · d dismiss" in pane(), timeout=10,
                   what="the notification numbered with its actions")
        assert "Ana — Lunch at noon?" in pane()
        keys("1 2")
        wait_until(lambda: "Reply needs text" in pane(), timeout=10, what="a reply without text refused")
        keys("1 2 On my way")
        wait_until(lambda: 'sent reply "On my way" to [1]' in pane(), timeout=10, what="the reply sent")

        parts = urlsplit(herald.api_url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
        conn.request("GET", "/v1/app/stream", headers={"Authorization": f"Bearer {credential}"})
        resp = conn.getresponse()
        line = b""
        while not line.startswith(b"data: "):
            line = resp.fp.readline()
        conn.close()
        event = json.loads(line[6:])
        assert (event["action_identifier"], event["user_text"]) == ("reply", "On my way")
        assert event["notification"]["identifier"] == "lunch"

        # Locked with previews hidden: the next one shows as the device shows it, not its text.
        assert herald.api("PUT", "/v1/me/preferences", token=device.user_token,
                          body={"show_previews": "never"}).status == 200
        add("secret", "Ben", "The surprise is at eight")
        wait_until(lambda: "[2]" in pane(), timeout=10, what="the second notification")
        assert "surprise" not in pane()
        keys("2 d")
        wait_until(lambda: "sent dismiss to [2]" in pane(), timeout=10, what="the dismissal sent")
        listed = herald.all_notifications(device)
        assert [n for n in listed if n["dismissed_at"]][0]["alert"]["title"] == "Ben"
        keys("7 1")
        wait_until(lambda: "There is no notification [7]." in pane(), timeout=10, what="an unknown number refused")
        screens = Path(__file__).resolve().parents[2] / ".build" / "screenshots"
        screens.mkdir(parents=True, exist_ok=True)
        (screens / "herald-watch-tmux.txt").write_text(pane())
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_herald_admin_content_extension_sets_shows_and_removes_one_and_refuses_bad_input(herald, tmp_path):
    app = herald.new_app(herald.demo["team_id"])
    html = tmp_path / "ext.html"
    html.write_text("<!doctype html><p>Hi</p>")

    def admin(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([herald_bin(), "admin", "content-extension", *args, "--url", herald.api_url,
                               "--admin-token", herald.admin_token], capture_output=True, text=True, timeout=30)

    # Bad input: no category (refused before asking), a size ratio the API refuses (its words).
    out = admin("set", app, str(html))
    assert out.returncode != 0 and "--category" in out.stderr
    out = admin("set", app, str(html), "--category", "invite", "--size-ratio", "0")
    assert out.returncode != 0 and "initial_content_size_ratio" in out.stderr, out.stderr
    out = admin("set", app, str(tmp_path / "missing.html"), "--category", "invite")
    assert out.returncode != 0 and "missing.html" in out.stderr
    assert admin("show", app).returncode != 0  # nothing was set

    out = admin("set", app, str(html), "--category", "invite", "--category", "event", "--media-button", "default")
    assert out.returncode == 0, out.stderr
    shown = json.loads(admin("show", app).stdout)
    assert (shown["categories"], shown["html"], shown["media_play_pause_button"], shown["initial_content_size_ratio"],
            shown["user_interaction_enabled"]) == (["invite", "event"], "<!doctype html><p>Hi</p>", "default", 1, False)
    assert admin("remove", app).returncode == 0
    out = admin("show", app)
    assert out.returncode != 0 and "no content extension" in out.stderr, out.stderr
