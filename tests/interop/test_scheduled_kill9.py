"""`kill -9` at random moments of the scheduled work (`herald serve --clock manual`): a Scheduled
Summary's release and a Focus schedule's end releasing what it held. After a restart each happens
exactly once: nothing released is lost, nothing is released twice."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from herald_support import REPORT, H2Client, SSEClient, new_apns_id

ZONE = "Asia/Kolkata"  # UTC+05:30 all year
EVERY_DAY = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
ROUNDS = 4  # per kind of work; each round is one kill and one restart (~1 s)
USERS = 8  # per round: enough work that a kill can land in the middle of it
HELD = 3  # pushes held per user
FIRST_GUESS = 0.05  # seconds a clock move that releases everything takes (measured again each round)


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def clock_now(env) -> datetime:
    return parse(env.admin("GET", "/v1/admin/clock")["now"])


def hhmm(moment: datetime) -> str:
    return moment.astimezone(ZoneInfo(ZONE)).strftime("%H:%M")


def at_local(after: datetime, text: str) -> datetime:
    """The first `text` (HH:MM in ZONE) strictly after `after`."""
    local = after.astimezone(ZoneInfo(ZONE))
    hour, minute = map(int, text.split(":"))
    candidate = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return candidate if candidate > local else candidate + timedelta(days=1)


def users_with(env, setup) -> list:
    devices = []
    for _ in range(USERS):
        device = env.new_device()
        assert env.api("PUT", "/v1/me/preferences", token=device.user_token, body={"time_zone": ZONE}).status == 200
        setup(device)
        devices.append(device)
    return devices


def push_held(env, devices, expected: str) -> dict[str, list[str]]:
    held: dict[str, list[str]] = {}
    with H2Client(env.apns_url) as h2:
        for d in devices:
            ids = [new_apns_id().lower() for _ in range(HELD)]
            answers = h2.push_many([(d.device_token, env.headers(apns_id=i), {"aps": {"alert": f"n{i[:4]}"}})
                                    for i in ids])
            assert {st.status for st in answers} == {200}, answers
            held[d.device_id] = ids
    for d in devices[:1]:
        assert {decision(env, d, i)["disposition"] for i in held[d.device_id]} == {expected}
    return held


def decision(env, device, apns_id: str) -> dict:
    r = env.api("GET", f"/v1/notifications/{apns_id}/decision", token=device.user_token)
    assert r.status == 200, r
    return r.json()


def summary_events(env, device) -> list[dict]:
    """The device's `summary` events, replayed from the beginning of its stream."""
    with SSEClient(env.api_url, device.device_id, device.user_token, cursor="0") as sse:
        assert sse.status == 200, sse.error_body
        return [e.json() for e in sse.drain(quiet=0.3) if e.event == "summary"]


def each(function, items) -> list:
    """`function` of each item, on threads (each stream is read until it is quiet: in parallel)."""
    with ThreadPoolExecutor(len(items)) as pool:
        return list(pool.map(function, items))


def fresh_clock(env, round_no: int) -> None:
    """Restarts the server (after the first round): its manual clock starts at the wall clock again,
    so each round's times are hours ahead of the clock a restart after its kill starts at."""
    if round_no:
        assert env.server.stop(timeout=10) == 0, env.server.log_tail()
        env.restart()


class KillPoints:
    """Random kill moments spread over a clock move's duration: up to 1.2 times the duration of the
    last move that did the whole release (measured after each restart), so that kills land before,
    during and after the release."""

    def __init__(self):
        self.rng = random.Random()
        self.typical = FIRST_GUESS

    def next(self) -> float:
        return self.rng.uniform(0, 1.2 * self.typical)

    def measure(self, move) -> None:
        started = time.monotonic()
        move()
        self.typical = time.monotonic() - started


def move_clock_and_kill(env, to: datetime, delay: float) -> str:
    """Moves the manual clock to `to` on a thread and kills the server `delay` s later; says whether
    the move had answered by then."""
    answered = threading.Event()

    def move():
        try:
            env.api("PUT", "/v1/admin/clock", body={"now": iso(to)}, token=env.admin_token)
            answered.set()
        except OSError:
            pass  # killed before it answered

    mover = threading.Thread(target=move, daemon=True)
    mover.start()
    time.sleep(delay)
    env.server.kill9()
    mover.join(10)
    return "after the move answered" if answered.is_set() else "during the move"


def test_a_summary_release_killed_at_a_random_moment_happens_exactly_once_after_restart(herald_factory):
    env = herald_factory("kill9-summary", extra_args=["--clock", "manual"])
    kills = KillPoints()
    outcomes = []
    for round_no in range(ROUNDS):
        fresh_clock(env, round_no)
        # Given users whose summary at a time two hours ahead holds three pushes each
        now = clock_now(env)
        time_text = hhmm(now + timedelta(hours=2))
        devices = users_with(env, lambda d: env.api("PUT", "/v1/me/summary", token=d.user_token, body={
            "times": [time_text], "apps": [d.bundle_id]}).status == 200 or pytest_fail("summary"))
        held = push_held(env, devices, "heldForSummary")
        slot = at_local(now, time_text)
        # When the clock moves past it and the server is killed at a random moment
        delay = kills.next()
        when = move_clock_and_kill(env, slot + timedelta(minutes=1), delay)
        env.restart()
        released_before = sum(1 for events in each(lambda d: summary_events(env, d), devices) if events)
        # Then after a restart (the manual clock starts at the wall clock again, before the slot)
        # and the clock moved past the slot again, every user's summary is there exactly once
        move = lambda: env.admin("PUT", "/v1/admin/clock", {"now": iso(slot + timedelta(minutes=1))}, expect=200)
        kills.measure(move) if released_before == 0 else move()
        env.admin("POST", "/v1/admin/clock/advance", {"seconds": 120}, expect=200)
        for d, events in zip(devices, each(lambda d: summary_events(env, d), devices)):
            assert len(events) == 1, (round_no, delay, d.device_id, events)
            assert events[0]["slot"] == iso(slot), events[0]
            ids = sorted(n["id"] for app in events[0]["apps"] for n in app["notifications"])
            assert ids == sorted(held[d.device_id]), (ids, held[d.device_id])
            assert {decision(env, d, i)["disposition"] for i in held[d.device_id]} == {"listedSilently"}
        outcomes.append(f"{delay * 1000:.0f} ms ({when}): {released_before}/{USERS} released before the kill")
    REPORT.append(f"kill -9 during summary releases, {ROUNDS} rounds, {USERS} users each: " + "; ".join(outcomes)
                  + " — every summary exactly once after restart")


def pytest_fail(what: str):
    raise AssertionError(f"could not set up the {what}")


def test_a_focus_release_killed_at_a_random_moment_happens_exactly_once_after_restart(herald_factory):
    env = herald_factory("kill9-focus", extra_args=["--clock", "manual"])
    kills = KillPoints()
    outcomes = []
    for round_no in range(ROUNDS):
        fresh_clock(env, round_no)
        # Given users whose Sleep Focus is on now (a schedule from an hour ago to two hours ahead),
        # holding three pushes each
        now = clock_now(env)
        start, end = hhmm(now - timedelta(hours=1)), hhmm(now + timedelta(hours=2))

        def sleep_schedule(d):
            r = env.api("PUT", "/v1/me/focus-modes/sleep", token=d.user_token,
                        body={"schedules": [{"days": EVERY_DAY, "start": start, "end": end}]})
            assert r.status == 200, r

        devices = users_with(env, sleep_schedule)
        held = push_held(env, devices, "heldForFocus")
        ends = at_local(now, end)
        # When the clock moves past the schedule's end and the server is killed at a random moment
        delay = kills.next()
        when = move_clock_and_kill(env, ends + timedelta(minutes=1), delay)
        env.restart()

        def released(d) -> set[str]:
            return {i for i in held[d.device_id] if decision(env, d, i)["disposition"] != "heldForFocus"}

        before = {d.device_id: released(d) for d in devices}
        # Then after a restart (the clock back at the wall clock: the Focus on again) and the clock
        # moved past the end again, each held push is released exactly once, at the schedule's end
        streams = [SSEClient(env.api_url, d.device_id, d.user_token).wait_connected() for d in devices]
        try:
            move = lambda: env.admin("PUT", "/v1/admin/clock", {"now": iso(ends + timedelta(minutes=1))}, expect=200)
            kills.measure(move) if not any(before.values()) else move()
            env.admin("POST", "/v1/admin/clock/advance", {"seconds": 120}, expect=200)
            drained = each(lambda stream: stream.drain(quiet=0.3), streams)
            for d, stream_events in zip(devices, drained):
                events = [e.json() for e in stream_events if e.event == "notification"]
                releases = [e["id"] for e in events if e["id"] in held[d.device_id]]
                # released now: once each on the stream; released before the kill: not again
                assert sorted(releases) == sorted(set(held[d.device_id]) - before[d.device_id]), \
                    (round_no, delay, when, releases, before[d.device_id])
                for i in held[d.device_id]:
                    decided = decision(env, d, i)
                    assert decided["disposition"] != "heldForFocus", decided
                    codes = [r["code"] for r in decided["reasons"]]
                    assert codes.count("released-focus-ended") == 1, codes
                    assert decided["released_at"] == iso(ends), (decided["released_at"], iso(ends))
        finally:
            for s in streams:
                s.close()
        n_before = sum(map(len, before.values()))
        outcomes.append(f"{delay * 1000:.0f} ms ({when}): {n_before}/{USERS * HELD} released before the kill")
    REPORT.append(f"kill -9 during Focus releases, {ROUNDS} rounds, {USERS} users each: " + "; ".join(outcomes)
                  + " — every held push released exactly once after restart")
