"""Fixtures: a real `herald serve` on free ports with its demo setup, plus admin/device helpers.

`herald` — one server for the whole session (most tests create their own users/devices so they
do not see each other's notifications). `herald_factory` — start extra servers with other flags
(rate limit, durability, shutdown)."""

from __future__ import annotations

import json
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from herald_support import (
    REPORT, SECRETS, note_data_dir_secrets, note_secret, secrets_in, H2Client, HeraldServer, HTTPResult, Provider, SetupError, as_body, apns_headers, http_request, query,
    random_hex_token, random_team_id,
)

REQUIRED_TOOLS = ("curl", "openssl")


@dataclass
class Device:
    device_id: str
    user_id: str | None
    user_token: str
    device_token: str
    bundle_id: str


class HeraldEnv:
    """A running server plus its demo identity and helpers for the admin and device APIs."""

    def __init__(self, server: HeraldServer, demo: dict[str, Any]):
        self.server = server
        self.demo = demo
        self.admin_token = note_secret(demo["admin_token"])
        note_secret(demo["user_token"])
        note_secret(demo["device_token"])
        self.api_url = demo["api_url"]
        self.apns_url = demo["apns_url"]
        self.apns_tls_url = demo["apns_tls_url"]
        self.ca_path = demo["ca_path"]
        self.topic = demo["topic"]
        self.provider = Provider(demo["team_id"], demo["key_id"], Path(demo["key_path"]).read_text(),
                                 key_path=demo["key_path"])
        self.device = Device(demo["device_id"], None, demo["user_token"], demo["device_token"], demo["topic"])

    def restart(self) -> None:
        """Start the (stopped or killed) server again on the same data dir; URLs change (port 0)."""
        self.server.start()
        rt = self.server.runtime
        self.api_url, self.apns_url, self.apns_tls_url = rt["api_url"], rt["apns_url"], rt["apns_tls_url"]

    @property
    def urls(self) -> dict[str, str]:
        return {"api_url": self.api_url, "apns_url": self.apns_url, "apns_tls_url": self.apns_tls_url}

    # -- raw API
    def api(self, method: str, path: str, *, body: Any = None, token: str | None = None,
            headers: dict[str, str] | None = None) -> HTTPResult:
        return http_request(self.api_url, method, path, body=body, token=token, headers=headers)

    def admin(self, method: str, path: str, body: Any = None, expect: int | None = None) -> Any:
        r = self.api(method, path, body=body, token=self.admin_token)
        if expect is not None:
            assert r.status == expect, f"{method} {path} {body} -> {r.status} {r.body[:400]!r}"
        elif not 200 <= r.status < 300:
            raise AssertionError(f"{method} {path} {body} -> {r.status} {r.body[:400]!r}")
        return r.json() if r.body else None

    # -- admin helpers
    def new_team(self) -> str:
        team_id = random_team_id()
        self.admin("POST", "/v1/admin/teams", {"team_id": team_id, "name": f"Team {team_id}"}, expect=201)
        return team_id

    def new_key(self, team_id: str, topics: list[str] | None = None) -> Provider:
        body: dict[str, Any] = {"team_id": team_id}
        if topics is not None:
            body["topics"] = topics
        key = self.admin("POST", "/v1/admin/keys", body, expect=201)
        pem = key.get("private_key_pem") or (Path(key["key_path"]).read_text() if key.get("key_path") else None)
        assert pem, f"POST /v1/admin/keys returned no private key: {key}"
        return Provider(team_id, key["key_id"], pem, key_path=key.get("key_path"))

    def new_app(self, team_id: str, bundle_id: str | None = None) -> str:
        bundle_id = bundle_id or f"com.herald.test.a{uuid.uuid4().hex[:10]}"
        self.admin("POST", "/v1/admin/apps", {
            "bundle_id": bundle_id, "team_id": team_id, "name": bundle_id,
            "entitlements": {"time_sensitive": True, "critical_alerts": True, "communication": True}},
            expect=201)
        return bundle_id

    def new_user(self, name: str = "tester") -> tuple[str, str]:
        u = self.admin("POST", "/v1/admin/users", {"name": name}, expect=201)
        return u["user_id"], note_secret(u["token"])

    def new_device(self, bundle_id: str | None = None, user: tuple[str, str] | None = None) -> Device:
        user_id, user_token = user or self.new_user()
        d = self.admin("POST", "/v1/admin/devices", {"user_id": user_id, "name": "test device"}, expect=201)
        bundle_id = bundle_id or self.topic
        token = self.new_token(d["device_id"], bundle_id)
        return Device(d["device_id"], user_id, user_token, token, bundle_id)

    def app_credential(self, device_id: str, bundle_id: str | None = None) -> str:
        """A credential of one app on one device (the app API, what UNUserNotificationCenter uses)."""
        c = self.admin("POST", "/v1/admin/app-credentials",
                       {"device_id": device_id, "bundle_id": bundle_id or self.topic}, expect=201)
        return note_secret(c["credential"])

    def new_token(self, device_id: str, bundle_id: str, token: str | None = None) -> str:
        body = {"device_id": device_id, "bundle_id": bundle_id}
        if token:
            body["token"] = token
        t = self.admin("POST", "/v1/admin/tokens", body, expect=201)
        return note_secret(t["token"])

    def unregister(self, token: str) -> dict:
        return self.admin("DELETE", f"/v1/admin/tokens/{token}", expect=200)

    # -- device API
    def notifications(self, device: Device, since: str | None = None, limit: int | None = None) -> dict:
        r = self.api("GET", query(f"/v1/devices/{device.device_id}/notifications", since=since, limit=limit),
                     token=device.user_token)
        assert r.status == 200, r
        return r.json()

    def all_notifications(self, device: Device, page: int = 500) -> list[dict]:
        out, since = [], None
        while True:
            res = self.notifications(device, since=since, limit=page)
            if not res["notifications"]:
                return out
            out += res["notifications"]
            assert res["cursor"] != since, "cursor did not advance"
            since = res["cursor"]

    def listed_ids(self, device: Device) -> list[str]:
        return [n["id"] for n in self.all_notifications(device)]

    # -- APNs helpers
    def headers(self, provider: Provider | None = None, topic: str | None = None, **kw):
        return apns_headers(provider or self.provider, topic or self.topic, **kw)


@pytest.fixture(scope="session", autouse=True)
def _tools():
    missing = [t for t in REQUIRED_TOOLS if shutil.which(t) is None]
    if missing:
        raise SetupError(f"missing tools: {missing} (run scripts/setup)")


def start_env(tmp_path_factory, name: str, extra_args=()) -> HeraldEnv:
    data = tmp_path_factory.mktemp(name) / "data"
    server = HeraldServer(data, extra_args).start()
    try:
        return HeraldEnv(server, server.demo())
    except BaseException:
        server.stop()
        raise


@pytest.fixture(scope="session")
def herald(tmp_path_factory):
    # The most verbose log level: whatever the tests send, no secret may reach the log (issue 16).
    env = start_env(tmp_path_factory, "herald", ["--log-level", "trace"])
    yield env
    code = env.server.stop(timeout=10)
    assert code == 0, f"herald exited with {code} after SIGTERM:\n{env.server.log_tail()}"
    log = env.server.log_path.read_text(errors="replace")
    note_data_dir_secrets(env.server.data_dir)
    leaked = secrets_in(log)
    REPORT.append(f"secrets in the trace-level log of the session server: {len(leaked)} of {len(SECRETS)} "
                  f"checked, and no JWT or private key of any origin ({len(log.splitlines())} log lines)")
    assert not leaked, "secrets in the server log: " + ", ".join(f"{x[:6]}…" for x in leaked[:10])


@pytest.fixture
def herald_factory(tmp_path_factory):
    """Starts extra servers; each is stopped (SIGTERM, exit 0 expected) at the end of the test."""
    started: list[HeraldServer] = []

    def make(name: str = "extra", extra_args=()) -> HeraldEnv:
        env = start_env(tmp_path_factory, name, extra_args)
        started.append(env.server)
        return env

    make.started = started
    yield make
    for s in started:
        if s.proc and s.proc.poll() is None:
            code = s.stop(timeout=10)
            assert code == 0, f"herald exited with {code} after SIGTERM:\n{s.log_tail()}"


@pytest.fixture
def h2(herald):
    """An h2c connection to the session server's APNs endpoint."""
    c = H2Client(herald.apns_url)
    yield c
    c.close()


@pytest.fixture
def device(herald) -> Device:
    """A fresh user with one device and a token for the demo app."""
    return herald.new_device()


def pytest_terminal_summary(terminalreporter):
    if REPORT:
        terminalreporter.section("herald interop figures")
        for line in REPORT:
            terminalreporter.write_line(line)
