"""A full disk: Herald's data directory on a small tmpfs this test mounts. Pushes get `500
InternalServerError` once the disk is full and every `200` survives a restart; the API's writes are
refused with `507 insufficient_storage` and change nothing; a Scheduled Summary due meanwhile is
released exactly once when space returns; the server stays up throughout and serves again, without
a restart, once the file system is enlarged. Needs mount(2) (root or CAP_SYS_ADMIN): skipped where
mounting is not allowed, saying so."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from conftest import HeraldEnv
from herald_support import database_engine, REPORT, H2Client, HeraldServer, SSEClient, new_apns_id, wait_until

# The SQLite file in the data directory is what these tests damage or starve; on PostgreSQL the
# database is the server's, and its failures are tested by test_postgres_nodes.py.
pytestmark = pytest.mark.skipif(database_engine() == "postgres", reason="the SQLite data file only")


SIZE_MIB = 8
ENLARGED_MIB = 64
PAYLOAD = b'{"aps":{"alert":{"title":"full","body":"' + b"x" * 3000 + b'"}}}'  # 3 KB, as tried by hand
ZONE = "Asia/Kolkata"


class SmallDisk:
    """A size-limited tmpfs mounted by the test (so filling it harms nothing else)."""

    def __init__(self, path: Path, size_mib: int):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        out = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mib}m,mode=0700", "herald-test-disk",
                              str(path)], capture_output=True, text=True)
        if out.returncode != 0:
            pytest.skip(f"cannot mount a {size_mib} MiB tmpfs here (the disk-full tests need root or "
                        f"CAP_SYS_ADMIN): `mount` said: {out.stderr.strip() or out.returncode}")
        self.mounted = True

    def resize(self, size_mib: int) -> None:
        subprocess.run(["mount", "-o", f"remount,size={size_mib}m", str(self.path)], check=True)

    def free_bytes(self) -> int:
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def unmount(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "--lazy", str(self.path)], check=False)
            self.mounted = False


@pytest.fixture
def full_disk_server(tmp_path):
    disk = SmallDisk(tmp_path / "data", SIZE_MIB)
    server = HeraldServer(disk.path, ["--clock", "manual"])
    try:
        server.start()
        env = HeraldEnv(server, server.demo())
        yield env, disk
        if server.proc and server.proc.poll() is None:
            assert server.stop(timeout=10) == 0, server.log_tail()
    finally:
        if server.proc and server.proc.poll() is None:
            server.kill9()
        disk.unmount()


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def next_local(after: datetime, hour: int) -> datetime:
    local = after.astimezone(ZoneInfo(ZONE))
    candidate = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    return candidate if candidate > local else candidate + timedelta(days=1)


def summary_events(env, device) -> list[dict]:
    """Every `summary` event of the device's stream, replayed from its beginning."""
    with SSEClient(env.api_url, device.device_id, device.user_token, cursor="0") as sse:
        assert sse.status == 200, sse.error_body
        return [e.json() for e in sse.drain(quiet=0.5) if e.event == "summary"]


def disposition(env, device, apns_id: str) -> str:
    r = env.api("GET", f"/v1/notifications/{apns_id}/decision", token=device.user_token)
    assert r.status == 200, r
    return r.json()["disposition"]


class Writer:
    """One of the API's writers: `put(n)` writes a value that differs with n, `read()` reads it back."""

    def __init__(self, name: str, put, read, value):
        self.name, self.put, self.read, self.value = name, put, read, value


def api_writers(env, device) -> list[Writer]:
    user = device.user_token
    bundle = device.bundle_id
    people = lambda n: [{"type": "email", "value": f"person{n}-{i}@example.com"} for i in range(40)]

    def focus_read():
        r = env.api("GET", "/v1/me/focus-modes", token=user)
        assert r.status == 200, r
        body = r.json()
        [work] = [m for m in (body["focus_modes"] if isinstance(body, dict) else body) if m["id"] == "work"]
        return sorted(p["value"] for p in work["allowed_people"])

    def category_read():
        r = env.api("GET", f"/v1/admin/apps/{bundle}/categories", token=env.admin_token)
        assert r.status == 200, r
        [category] = [c for c in r.json()["categories"] if c["identifier"] == "full-disk"] or [None]
        return category and [a["identifier"] for a in category["actions"]]

    def state_read():
        r = env.api("GET", f"/v1/devices/{device.device_id}/state", token=user)
        assert r.status == 200, r
        return r.json()["time_zone"]

    def preferences_read():
        r = env.api("GET", "/v1/me/preferences", token=user)
        assert r.status == 200, r
        return r.json()["locale"]

    category = lambda n: {"actions": [{"identifier": f"a{n}-{i}", "title": f"Action {n} {i} " + "t" * 60,
                                       "options": []} for i in range(10)]}
    locales = ["en", "fr", "de", "es", "it", "ja"]
    zones = ["Asia/Kolkata", "Europe/Paris", "America/New_York", "Asia/Tokyo"]
    return [
        Writer("Focus mode", lambda n: env.api("PUT", "/v1/me/focus-modes/work", token=user,
                                              body={"allowed_people": people(n)}),
               focus_read, lambda n: sorted(p["value"] for p in people(n))),
        Writer("category", lambda n: env.api("PUT", f"/v1/admin/apps/{bundle}/categories/full-disk",
                                            token=env.admin_token, body=category(n)),
               category_read, lambda n: [a["identifier"] for a in category(n)["actions"]]),
        Writer("settings (preferences)", lambda n: env.api("PUT", "/v1/me/preferences", token=user,
                                                           body={"locale": locales[n % len(locales)]}),
               preferences_read, lambda n: locales[n % len(locales)]),
        Writer("device state", lambda n: env.api("PUT", f"/v1/devices/{device.device_id}/state", token=user,
                                                 body={"time_zone": zones[n % len(zones)]}),
               state_read, lambda n: zones[n % len(zones)]),
    ]


def write_until_refused(writer: Writer, start: int, attempts: int = 300) -> tuple[int | None, object]:
    """Writes new values until one is refused; returns the last value accepted (its n) and the refusal."""
    last_ok = None
    for n in range(start, start + attempts):
        r = writer.put(n)
        if r.status == 200 or r.status == 201:
            last_ok = n
            continue
        return last_ok, r
    raise AssertionError(f"{writer.name}: {attempts} writes accepted on a full disk")


def test_a_full_disk_refuses_cleanly_loses_nothing_acknowledged_and_recovers_when_enlarged(full_disk_server):
    env, disk = full_disk_server
    started = time.monotonic()
    # Given a user whose Scheduled Summary holds three pushes, and a device to fill the disk with
    summary_device = env.new_device()
    user = summary_device.user_token
    assert env.api("PUT", "/v1/me/preferences", token=user, body={"time_zone": ZONE}).status == 200
    assert env.api("PUT", "/v1/me/summary", token=user,
                   body={"times": ["08:00"], "apps": [summary_device.bundle_id]}).status == 200
    filler = env.new_device()
    held = []
    with H2Client(env.apns_url) as h2:
        for _ in range(3):
            apns_id = new_apns_id()
            st = h2.push(summary_device.device_token, env.headers(apns_id=apns_id),
                         {"aps": {"alert": {"title": "Sale", "body": "50% off"}}})
            assert st.status == 200, st
            held.append(apns_id)
    assert {disposition(env, summary_device, i) for i in held} == {"heldForSummary"}

    # When providers push 3 KB notifications until the disk is full
    acked: list[str] = []
    refused: list[tuple[int | None, str | None]] = []
    with H2Client(env.apns_url, timeout=30) as h2:
        deadline = time.monotonic() + 60
        while len(refused) < 100:
            assert time.monotonic() < deadline, f"the disk never filled: {len(acked)} pushes acknowledged"
            ids = [new_apns_id() for _ in range(50)]
            answers = h2.push_many([(filler.device_token, env.headers(apns_id=i), PAYLOAD) for i in ids], window=50)
            for apns_id, st in zip(ids, answers):
                if st.status == 200:
                    acked.append(apns_id)
                else:
                    refused.append((st.status, st.reason))
    # Then every refusal is APNs's 500 InternalServerError, and the server is still up
    assert set(refused) == {(500, "InternalServerError")}, set(refused)
    assert acked, "no push was acknowledged before the disk was full"
    assert disk.free_bytes() < 64 * 1024, f"{disk.free_bytes()} bytes still free"
    assert env.api("GET", "/healthz").status == 200
    assert env.server.proc.poll() is None

    # The API's writers: each is refused (once the room left in the database's own files is used up)
    # with 507 insufficient_storage, and the value read back is the last one accepted: nothing half-written
    writers = api_writers(env, summary_device)
    accepted: dict[str, int | None] = {}
    for w in writers:
        last_ok, refusal = write_until_refused(w, start=0)
        assert refusal.status == 507, (w.name, refusal)
        error = refusal.json()["error"]
        assert error["code"] == "insufficient_storage" and "disk is full" in error["message"], (w.name, error)
        if last_ok is not None:
            assert w.read() == w.value(last_ok), f"{w.name}: not the last accepted value after a refusal"
        accepted[w.name] = last_ok
    # the smallest write (device state) was refused last: no room is left for any transaction

    # When the summary time comes while the disk is full
    now = datetime.fromisoformat(env.admin("GET", "/v1/admin/clock")["now"].replace("Z", "+00:00"))
    slot = next_local(now, 8)
    env.admin("PUT", "/v1/admin/clock", {"now": iso(slot)}, expect=200)
    # Then it is not released yet (the store could not record it), and nothing half-released
    assert {disposition(env, summary_device, i) for i in held} == {"heldForSummary"}

    # When the file system is enlarged
    disk.resize(ENLARGED_MIB)
    # Then pushes get 200 again at once, without a restart
    with H2Client(env.apns_url) as h2:
        for _ in range(5):
            apns_id = new_apns_id()
            st = h2.push(filler.device_token, env.headers(apns_id=apns_id), PAYLOAD)
            assert st.status == 200, st
            acked.append(apns_id)
    # and every API writer accepts its next value
    final: dict[str, int] = {}
    for w in writers:
        n = 1000
        r = w.put(n)
        assert r.status in (200, 201), (w.name, r)
        assert w.read() == w.value(n), w.name
        final[w.name] = n
    # and the summary is released (by the service trying again), exactly once
    wait_until(lambda: all(disposition(env, summary_device, i) != "heldForSummary" for i in held), timeout=30,
               what="the summary released after the disk was enlarged")
    time.sleep(2.5)  # more than the first retry delays: a second release would show by now
    events = summary_events(env, summary_device)
    assert len(events) == 1, events
    assert events[0]["slot"] == iso(slot), events[0]
    assert sorted(n["id"] for app in events[0]["apps"] for n in app["notifications"]) == sorted(held), events[0]
    during = time.monotonic() - started

    # After a restart: every acknowledged push is listed, the summary is still there once, the writes kept
    assert env.server.stop(timeout=10) == 0, env.server.log_tail()
    env.restart()
    listed = set(env.listed_ids(filler))
    lost = [i for i in acked if i not in listed]
    assert not lost, f"{len(lost)} of {len(acked)} acknowledged pushes lost: {lost[:3]}"
    assert len(listed) == len(acked), (len(listed), len(acked))
    assert len(summary_events(env, summary_device)) == 1
    for w in writers:
        assert w.read() == w.value(final[w.name]), w.name

    # The full disk is in the log once per episode, not once per refused request
    log = env.server.log_path.read_text(errors="replace")
    full_lines = [line for line in log.splitlines() if "storage.fault=diskFull" in line and " error " in line]
    recovered = [line for line in log.splitlines() if "Storage writes succeed again" in line]
    assert 1 <= len(full_lines) <= len(recovered) + 1, full_lines
    refused_requests = len(refused) + len(writers)
    assert len(full_lines) * 10 <= refused_requests, (len(full_lines), refused_requests)
    assert "PRAGMA" not in log  # not mistaken for damage
    REPORT.append(f"disk full ({SIZE_MIB} MiB tmpfs, 3 KB pushes): {len(acked) - 5} pushes answered 200, then "
                  f"{len(refused)} answered 500 InternalServerError; the 4 API writers refused with 507 "
                  f"(after {sum(1 for v in accepted.values() if v is not None)} fit in the database's free room); "
                  f"enlarged to {ENLARGED_MIB} MiB: 200 again at once, the summary released once; after a "
                  f"restart all {len(acked)} acknowledged pushes listed; {len(full_lines)} disk-full log line(s) "
                  f"for {refused_requests}+ refused requests; {during:.1f} s")
