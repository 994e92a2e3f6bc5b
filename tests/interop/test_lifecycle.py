"""Server lifecycle and limits: graceful shutdown on SIGTERM, per-device rate limit."""

from __future__ import annotations

import time

import pytest

from herald_support import (
    REPORT, ConnectionClosed, H2Client, SSEClient, alert_payload, apns_headers, as_body, curl, curl_burst, new_apns_id,
)


def test_sigterm_sends_goaway_exits_0_and_keeps_the_data(herald_factory):
    env = herald_factory("shutdown")
    dev = env.new_device()
    # Given an open provider connection with a delivered push, and a live SSE session
    c = H2Client(env.apns_url)
    apns_id = new_apns_id()
    st = c.push(dev.device_token, env.headers(apns_id=apns_id), alert_payload("before", "shutdown"))
    assert st.status == 200
    tls = H2Client(env.apns_tls_url, cafile=env.ca_path)
    session = SSEClient(env.api_url, dev.device_id, dev.user_token)
    assert session.status == 200
    session.wait_connected()
    try:
        # When the server gets SIGTERM
        t0 = time.monotonic()
        env.server.proc.send_signal(15)
        # Then both provider connections get GOAWAY (NO_ERROR)
        for client in (c, tls):
            goaway = client.wait_for_goaway(5)
            assert goaway is not None, "no GOAWAY on SIGTERM"
            assert goaway.error_code == 0, f"GOAWAY error code {goaway.error_code}"
            client.close()  # as real clients do on GOAWAY
        # and the process exits 0 promptly, even with a live SSE session
        code = env.server.proc.wait(10)
        elapsed = time.monotonic() - t0
        assert code == 0, f"exit status {code}:\n{env.server.log_tail()}"
        assert elapsed < 10
        REPORT.append(f"SIGTERM with open h2c, TLS and SSE sessions: exit 0 after {elapsed * 1000:.0f} ms")
    finally:
        c.close()
        tls.close()
        session.close()
    # And after a restart the notification is still there
    env.restart()
    assert env.listed_ids(dev) == [apns_id]


def test_push_during_shutdown_is_refused_or_kept(herald_factory):
    """A request racing SIGTERM is either acknowledged (then durable) or refused with 503 Shutdown."""
    env = herald_factory("shutdown-race")
    dev = env.new_device()
    c = H2Client(env.apns_url)
    acked, refused = [], []
    ids = [new_apns_id() for _ in range(200)]
    sids = {}
    try:
        for i in ids[:100]:
            sids[c.start_request(f"/3/device/{dev.device_token}", env.headers(apns_id=i), b'{"aps":{"alert":"r"}}')] = i
        env.server.proc.send_signal(15)
        for i in ids[100:]:
            try:
                sids[c.start_request(f"/3/device/{dev.device_token}", env.headers(apns_id=i),
                                     b'{"aps":{"alert":"r"}}')] = i
            except Exception:
                break
        try:
            # streams above GOAWAY's last_stream_id were not processed: a client retries them elsewhere
            c.pump_until(lambda: all(c.streams[s].ended or (c.goaway and s > c.goaway.last_stream_id)
                                     for s in sids), timeout=10)
        except (ConnectionClosed, TimeoutError):
            pass
        for sid, i in sids.items():
            st = c.streams[sid]
            if st.status == 200:
                acked.append(i)
            elif st.status:
                refused.append((st.status, st.reason))
    finally:
        c.close()
    assert env.server.proc.wait(10) == 0
    assert all(r == (503, "Shutdown") for r in refused), refused[:5]
    env.restart()
    listed = set(env.listed_ids(dev))
    assert set(acked) <= listed, f"{len(set(acked) - listed)} acknowledged pushes lost in a graceful shutdown"


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    from conftest import start_env
    env = start_env(tmp_path_factory, "ratelimit", ["--device-rate-limit", "2"])
    yield env
    assert env.server.stop() == 0


@pytest.mark.parametrize("transport", ["h2c", "tls", "http1"])
def test_per_device_rate_limit_answers_too_many_requests(limited, transport):
    env = limited
    dev = env.new_device()
    # When a provider bursts 5 pushes at one device (limit 2 per second), back to back on one connection
    if transport == "h2c":  # curl 7.88 cannot reuse an h2c prior-knowledge connection (fails against nginx too)
        with H2Client(env.apns_url) as c:
            got = [(st.status, st.reason) for st in (c.push(dev.device_token, env.headers(), alert_payload("burst"))
                                                     for _ in range(5))]
    else:
        results = curl_burst(transport, env.urls, f"/3/device/{dev.device_token}", env.headers(),
                             as_body(alert_payload("burst")), 5, ca_path=env.ca_path)
        got = [(r.status, r.reason) for r in results]
    # Then the first two pass and the rest get 429 TooManyRequests
    assert got[:2] == [(200, None), (200, None)], got
    assert (429, "TooManyRequests") in got[2:], got
    assert all(r in ((200, None), (429, "TooManyRequests")) for r in got), got
    assert len(env.listed_ids(dev)) == sum(1 for r in got if r[0] == 200), "refused pushes must not be stored"
    # And another device is not affected
    other = env.new_device()
    res = curl(transport, env.urls, f"/3/device/{other.device_token}", env.headers(), as_body(alert_payload()),
               ca_path=env.ca_path)
    assert res.status == 200, res
