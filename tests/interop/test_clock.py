"""`herald serve --clock manual`: an app developer moves time instead of waiting for it. A Focus
schedule's end and a Scheduled Summary time are reached by `POST /v1/admin/clock/advance` (or
`herald clock`), and what they release shows at once; the wall-clock server refuses, time never
goes back, and only the admin may move it."""

from __future__ import annotations

import json
import subprocess
import time
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from herald_support import H2Client, SSEClient, herald_bin, new_apns_id

ZONE = "Asia/Kolkata"  # UTC+05:30 all year: local times are easy to check
EVERY_DAY = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]


@pytest.fixture
def manual(herald_factory):
    return herald_factory("clock", extra_args=["--clock", "manual"])


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def clock(env) -> dict:
    return env.admin("GET", "/v1/admin/clock", expect=200)


def next_local(after: datetime, hour: int, minute: int = 0) -> datetime:
    """The first `hour:minute` in ZONE strictly after `after`."""
    local = after.astimezone(ZoneInfo(ZONE))
    candidate = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if candidate <= local:
        candidate += timedelta(days=1)
    return candidate


def user_in_kolkata(env):
    device = env.new_device()
    r = env.api("PUT", "/v1/me/preferences", body={"time_zone": ZONE}, token=device.user_token)
    assert r.status == 200, r
    return device


def push(env, device) -> str:
    apns_id = new_apns_id()
    with H2Client(env.apns_url) as h2:
        st = h2.push(device.device_token, env.headers(apns_id=apns_id),
                     {"aps": {"alert": {"title": "Ana", "body": "Are you up?"}}})
    assert st.status == 200, st
    return apns_id.lower()


def decision(env, device, apns_id: str) -> dict:
    r = env.api("GET", f"/v1/notifications/{apns_id}/decision", token=device.user_token)
    assert r.status == 200, r
    return r.json()


def test_advancing_past_a_focus_schedule_s_end_releases_what_it_held_at_once(manual):
    device = user_in_kolkata(manual)
    r = manual.api("PUT", "/v1/me/focus-modes/sleep", token=device.user_token,
                   body={"schedules": [{"days": EVERY_DAY, "start": "22:00", "end": "07:00"}]})
    assert r.status == 200, r

    # 23:00 in Kolkata: the Sleep Focus is on
    start = parse(clock(manual)["now"])
    night = next_local(start, 23)
    assert manual.admin("PUT", "/v1/admin/clock", {"now": iso(night)}, expect=200) == {"mode": "manual", "now": iso(night)}
    focus = manual.api("GET", "/v1/me/focus", token=device.user_token).json()
    assert (focus["active"] or {}).get("id") == "sleep", focus
    held = push(manual, device)
    assert decision(manual, device, held)["disposition"] == "heldForFocus"

    # Advance 8 h 30 min in one call, past 07:00: released at once (read right after, no polling), at 07:00
    moved = manual.admin("POST", "/v1/admin/clock/advance", {"seconds": 8.5 * 3600}, expect=200)
    assert moved == {"mode": "manual", "now": iso(night + timedelta(hours=8.5))}
    released = decision(manual, device, held)
    assert released["disposition"] != "heldForFocus", released
    assert "released-focus-ended" in [r["code"] for r in released["reasons"]], released
    assert released["released_at"] == iso(next_local(night, 7)), released
    assert manual.api("GET", "/v1/me/focus", token=device.user_token).json()["active"] is None

    # The provider's token is signed with the wall clock, hours behind: still accepted; the push is
    # received at the clock's time
    later = push(manual, device)
    listed = {n["id"]: n for n in manual.all_notifications(device)}
    assert listed[later]["received_at"] == moved["now"]
    assert listed[held]["received_at"] == iso(night)


def test_a_summary_time_reached_by_advancing_delivers_the_summary_on_the_stream(manual):
    device = user_in_kolkata(manual)
    r = manual.api("PUT", "/v1/me/summary", token=device.user_token,
                   body={"times": ["08:00"], "apps": [device.bundle_id]})
    assert r.status == 200, r
    sse = SSEClient(manual.api_url, device.device_id, device.user_token)
    assert sse.status == 200
    try:
        held = push(manual, device)
        [event] = sse.collect(1)
        assert json.loads(event.data)["id"] == held
        assert decision(manual, device, held)["disposition"] == "heldForSummary"
        now = parse(clock(manual)["now"])
        slot = next_local(now, 8)

        # Advance exactly to 08:00 in Kolkata: delivered by the time the answer comes
        moved = manual.admin("POST", "/v1/admin/clock/advance", {"seconds": (slot - now).total_seconds()}, expect=200)
        assert moved["now"] == iso(slot)
        released = decision(manual, device, held)
        assert released["disposition"] == "listedSilently", released
        assert "summary-delivered" in [r["code"] for r in released["reasons"]], released
        assert released["released_at"] == iso(slot), released

        # and the summary event is on the stream
        [summary] = sse.collect(1, timeout=5, kinds=("summary",))
        body = json.loads(summary.data)
        assert body["slot"] == iso(slot) and body["released_at"] == iso(slot), body
        assert [n["id"] for app in body["apps"] for n in app["notifications"]] == [held], body
    finally:
        sse.close()


def test_moving_time_is_refused_on_the_wall_clock_backwards_and_without_the_admin_token(herald, manual):
    # The session's server runs on the wall clock: it reads it, and refuses to move it
    read = herald.admin("GET", "/v1/admin/clock", expect=200)
    assert read["mode"] == "system" and abs(parse(read["now"]).timestamp() - time.time()) < 60, read
    for method, path, body in [("PUT", "/v1/admin/clock", {"now": "2099-01-01T00:00:00Z"}),
                               ("POST", "/v1/admin/clock/advance", {"seconds": 60})]:
        r = herald.api(method, path, body=body, token=herald.admin_token)
        assert r.status == 409, r
        error = r.json()["error"]
        assert error["code"] == "clock_not_manual" and "--clock manual" in error["message"], error

    # Time never goes back: the services have acted up to now
    now = clock(manual)["now"]
    for method, path, body in [("PUT", "/v1/admin/clock", {"now": iso(parse(now) - timedelta(seconds=1))}),
                               ("POST", "/v1/admin/clock/advance", {"seconds": -60})]:
        r = manual.api(method, path, body=body, token=manual.admin_token)
        assert r.status == 400, r
        error = r.json()["error"]
        assert error["code"] == "clock_backwards", error
        assert "only moves forward" in error["message"] and now in error["message"], error
    assert clock(manual)["now"] == now

    # Only the admin reads or moves it
    user = manual.new_device().user_token
    for token in (None, user, "wrong"):
        for method, path, body in [("GET", "/v1/admin/clock", None), ("PUT", "/v1/admin/clock", {"now": now}),
                                   ("POST", "/v1/admin/clock/advance", {"seconds": 60})]:
            r = manual.api(method, path, body=body, token=token)
            assert r.status == 401 and r.json()["error"]["code"] == "unauthorized", (method, token, r)
    assert clock(manual)["now"] == now


def herald_clock(*args) -> tuple[dict, dict | None, int]:
    out = subprocess.run([herald_bin(), "clock", *map(str, args)], capture_output=True, text=True, timeout=60)
    try:
        printed = json.loads(out.stdout) if out.stdout.strip() else None
        error = json.loads(out.stderr) if out.returncode else None
    except ValueError:
        raise AssertionError(f"`herald clock {' '.join(map(str, args))}` printed no JSON (exit {out.returncode}): "
                             f"stdout={out.stdout!r} stderr={out.stderr[-500:]!r}")
    return printed, error, out.returncode


def test_herald_clock_reads_sets_and_advances_the_time(herald, manual):
    data = manual.server.data_dir
    shown, _, code = herald_clock("--data", data)
    assert code == 0 and shown["mode"] == "manual", shown
    start = parse(shown["now"])

    advanced, _, code = herald_clock("advance", "1h30m", "--data", data)
    assert code == 0 and advanced == {"mode": "manual", "now": iso(start + timedelta(minutes=90))}, advanced
    advanced, _, code = herald_clock("advance", "45", "--data", data)
    assert code == 0 and advanced["now"] == iso(start + timedelta(minutes=90, seconds=45)), advanced
    target = start + timedelta(days=2)
    moved, _, code = herald_clock("set", iso(target), "--data", data)
    assert code == 0 and moved == {"mode": "manual", "now": iso(target)}, moved
    assert clock(manual)["now"] == iso(target)

    # Backwards: the API's error on stderr, exit 1
    _, error, code = herald_clock("set", iso(start), "--data", data)
    assert code == 1 and error["error"]["code"] == "clock_backwards", error

    # The wall-clock server, by --url and --admin-token (`=`: a token may start with `-`): readable, not movable
    connection = (f"--url={herald.api_url}", f"--admin-token={herald.admin_token}")
    shown, _, code = herald_clock(*connection)
    assert code == 0 and shown["mode"] == "system", shown
    _, error, code = herald_clock("advance", "1h", *connection)
    assert code == 1 and error["error"]["code"] == "clock_not_manual", error
