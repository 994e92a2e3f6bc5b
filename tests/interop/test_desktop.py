"""`herald watch --desktop` against a real freedesktop notification daemon: dunst on a private D-Bus
session bus, drawing on Xvfb. What dunst shows is logged by a dunst rule's script; actions are
chosen through dunst's own context menu (`dunstctl context`, with a menu program that picks the
label the test names); closing is `dunstctl close`."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from herald_support import herald_bin, wait_until


class Desktop:
    """A D-Bus session bus, an X server and dunst, all private to the test."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.shown = directory / "shown.jsonl"
        self.choice = directory / "choice.txt"
        log = directory / "log.sh"
        log.write_text('#!/bin/sh\nprintf \'{"app":"%s","summary":"%s","body":"%s","urgency":"%s","id":%s}\\n\' '
                       '"$DUNST_APP_NAME" "$DUNST_SUMMARY" "$DUNST_BODY" "$DUNST_URGENCY" "$DUNST_ID" >> '
                       f'{self.shown}\n')
        menu = directory / "menu.sh"
        menu.write_text(f'#!/bin/sh\ntee {directory}/menu.txt | grep -m1 -F "#$(cat {self.choice}) "\n')
        for script in (log, menu):
            script.chmod(0o755)
        config = directory / "dunstrc"
        config.write_text(f"[global]\n    dmenu = {menu}\n\n[everything]\n    appname = \"*\"\n    script = {log}\n")
        self.bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        address = self.bus.stdout.readline().strip()
        display = f":{90 + os.getpid() % 100}"
        self.xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": address, "DISPLAY": display}
        time.sleep(0.5)
        self.dunst = subprocess.Popen(["dunst", "-config", str(config)], env=self.env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: self.ctl("count", "displayed") == "0", timeout=15, what="dunst on the bus")

    def ctl(self, *args: str) -> str:
        out = subprocess.run(["dunstctl", *args], env=self.env, capture_output=True, text=True, timeout=10)
        return out.stdout.strip()

    def displayed(self) -> int:
        return int(self.ctl("count", "displayed") or "0")

    def shown_list(self) -> list[dict]:
        if not self.shown.exists():
            return []
        return [json.loads(line) for line in self.shown.read_text().splitlines() if line]

    def choose(self, label: str) -> None:
        """Picks the action `label` of the newest notification in dunst's context menu."""
        self.choice.write_text(label)
        self.ctl("context")

    def stop(self) -> None:
        for process in (self.dunst, self.xvfb, self.bus):
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()


class AppStream:
    """The app's connection, open for the whole test as an app keeps it: each response reaches one
    connection once (a connection the client left but the server has not noticed yet could claim one)."""

    def __init__(self, herald, credential: str):
        parts = urlsplit(herald.api_url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)
        self.conn.request("GET", "/v1/app/stream", headers={"Authorization": f"Bearer {credential}"})
        self.resp = self.conn.getresponse()

    def next_response(self) -> dict:
        line = b""
        while not line.startswith(b"data: "):
            line = self.resp.fp.readline()
        return json.loads(line[6:])

    def close(self) -> None:
        self.conn.close()


def test_herald_watch_desktop_shows_alerts_on_dunst_and_sends_the_answers_back(herald, tmp_path):
    desktop = Desktop(tmp_path)
    device = herald.new_device()
    credential = herald.app_credential(device.device_id)
    category = {"identifier": "chat", "actions": [
        {"identifier": "like", "title": "Like"},
        {"identifier": "reply", "title": "Reply", "text_input": {"button_title": "Send", "placeholder": "Message"}}],
        "options": ["custom_dismiss_action"]}
    assert herald.api("PUT", "/v1/app/categories", token=credential, body={"categories": [category]}).status == 200
    assert herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token,
                      body={"locked": False}).status == 200
    app = AppStream(herald, credential)
    watch = subprocess.Popen(
        [herald_bin(), "watch", "--desktop", "--url", herald.api_url, "--token", device.user_token,
         "--device", device.device_id],
        env=desktop.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def add(identifier: str, title: str, body: str, **content) -> None:
        r = herald.api("POST", "/v1/app/requests", token=credential, body={
            "identifier": identifier,
            "content": {"title": title, "body": body, "category_identifier": "chat", **content}})
        assert r.status in (200, 201), r

    try:
        wait_until(lambda: watch.stderr.readline().startswith("watching device"), timeout=15,
                   what="herald watch connected")
        add("lunch", "Ana", "Lunch at noon?")
        wait_until(lambda: desktop.displayed() == 1, timeout=15, what="the notification on the desktop")
        shown = desktop.shown_list()
        assert [(s["app"], s["summary"], s["body"], s["urgency"]) for s in shown] == [
            (herald.topic, "Ana", "Lunch at noon?", "NORMAL")]

        # Its buttons: Open (the notification's own action) and Like — no Reply: it needs text.
        desktop.choose("Like")
        response = app.next_response()
        assert (response["action_identifier"], response["notification"]["identifier"]) == ("like", "lunch")
        menu = (tmp_path / "menu.txt").read_text()
        assert "#Like" in menu and "#Open" in menu and "Reply" not in menu

        # Closed after its answer: no dismissal as well (the next response below is the next one's).
        desktop.ctl("close")
        wait_until(lambda: desktop.displayed() == 0, timeout=15, what="the answered notification closed")

        # Passive: listed, never a banner — nothing on the desktop.
        add("later", "Digest", "Three new posts", interruption_level="passive")
        time.sleep(1.5)
        assert [s["summary"] for s in desktop.shown_list()] == ["Ana"]

        # Closed on the desktop: a dismissal, which this category's app hears of.
        add("movie", "Ben", "Movie tonight?")
        wait_until(lambda: len(desktop.shown_list()) == 2, timeout=15, what="the second notification shown")
        desktop.ctl("close")  # the topmost: the only one
        response = app.next_response()
        assert (response["action_identifier"], response["notification"]["identifier"]) == (
            "com.apple.UNNotificationDismissActionIdentifier", "movie")

        # Dismissed in Herald (another client): it leaves the desktop.
        add("coffee", "Cy", "Coffee?")
        wait_until(lambda: len(desktop.shown_list()) == 3, timeout=15, what="the third notification shown")
        coffee = next(n for n in herald.all_notifications(device) if (n.get("alert") or {}).get("title") == "Cy")
        before = desktop.displayed()
        assert herald.api("POST", f"/v1/devices/{device.device_id}/notifications/{coffee['id']}/dismiss",
                          token=device.user_token).status == 200
        wait_until(lambda: desktop.displayed() == before - 1, timeout=15, what="the dismissed one closed")
    finally:
        watch.terminate()
        try:
            watch.wait(timeout=10)
        except subprocess.TimeoutExpired:
            watch.kill()
        print("herald watch:", watch.stderr.read()[-3000:])
        app.close()
        desktop.stop()


def test_herald_watch_desktop_without_a_session_bus_says_so(herald, device):
    out = subprocess.run(
        [herald_bin(), "watch", "--desktop", "--url", herald.api_url, "--token", device.user_token,
         "--device", device.device_id],
        env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=30)
    assert out.returncode == 1
    assert "--desktop: Cannot connect to the session bus" in out.stderr
