"""The HTTP/2 wire as raw-frame clients see it (h2 library): frame shapes, PING, SETTINGS, concurrency,
per-connection provider-token rules; and TLS ALPN negotiation."""

from __future__ import annotations

import ssl
import socket
import time
from urllib.parse import urlsplit

import pytest
from h2.settings import SettingCodes

from herald_support import H2Client, alert_payload, curl, new_apns_id, random_hex_token

MODES = ("h2c", "tls-no-alpn", "tls-alpn-h2")


def connect(env, mode: str) -> H2Client:
    if mode == "h2c":
        return H2Client(env.apns_url)
    if mode == "tls-no-alpn":  # like aioapns: TLS, no ALPN offer, HTTP/2 preface right away
        return H2Client(env.apns_tls_url, cafile=env.ca_path)
    c = H2Client(env.apns_tls_url, cafile=env.ca_path, alpn=["h2", "http/1.1"])
    assert c.alpn_selected == "h2"
    return c


@pytest.fixture(params=MODES)
def client(request, herald):
    c = connect(herald, request.param)
    yield c
    c.close()


def test_success_is_a_single_headers_frame_with_end_stream(herald, client, device):
    apns_id = new_apns_id()
    st = client.push(device.device_token, herald.headers(apns_id=apns_id), alert_payload())
    assert st.status == 200, st
    assert st.frames == [("HEADERS", 0, True)], f"200 must be one HEADERS(END_STREAM), got {st.frames}"
    assert st.header("apns-id") == apns_id
    assert st.header("apns-unique-id")


@pytest.mark.parametrize("bad", ["unknown-token", "unregistered"])
def test_error_is_headers_then_one_data_frame_with_the_json(herald, client, device, bad):
    token = random_hex_token()
    if bad == "unregistered":
        token = herald.new_device().device_token
        herald.unregister(token)
    apns_id = new_apns_id()
    st = client.push(token, herald.headers(apns_id=apns_id), alert_payload())
    assert len(st.frames) == 2 and st.frames[0] == ("HEADERS", 0, False) and st.frames[1][0] == "DATA" \
        and st.frames[1][2], f"error must be HEADERS then one DATA(END_STREAM), got {st.frames}"
    assert (st.header("content-type") or "").startswith("application/json")
    assert st.header("apns-id") == apns_id
    if bad == "unregistered":
        assert st.status == 410 and st.reason == "Unregistered"
        import json
        assert isinstance(json.loads(st.data)["timestamp"], int)
    else:
        assert st.status == 400 and st.reason == "BadDeviceToken"


def test_ping_is_acked(client):
    assert client.ping(b"hrld1234") == b"hrld1234"


def test_server_advertises_many_concurrent_streams(client):
    value = client.remote_settings.get(SettingCodes.MAX_CONCURRENT_STREAMS)
    assert value is not None, f"SETTINGS_MAX_CONCURRENT_STREAMS not advertised: {client.remote_settings}"
    assert value >= 500, value


def test_100_concurrent_streams_on_one_connection_are_all_answered(herald, client, device):
    ids = [new_apns_id() for _ in range(100)]
    sids = [client.start_request(f"/3/device/{device.device_token}", herald.headers(apns_id=i),
                                 b'{"aps":{"alert":"n%d"}}' % n) for n, i in enumerate(ids)]
    streams = client.wait(sids, timeout=30)
    assert [s.status for s in streams] == [200] * 100, [s for s in streams if s.status != 200][:3]
    assert [s.header("apns-id") for s in streams] == ids
    assert sorted(herald.listed_ids(device)) == sorted(ids)


def test_plain_host_header_instead_of_authority_is_accepted(herald, device):
    # aioapns and Apple's sample send `host`, not `:authority`.
    with H2Client(herald.apns_tls_url, cafile=herald.ca_path, authority_header=False) as c:
        st = c.push(device.device_token, herald.headers(), alert_payload())
        assert st.status == 200, st


@pytest.mark.parametrize("mode", ["h2c", "tls-no-alpn"])
def test_new_provider_token_within_20_minutes_on_one_connection_is_refused(herald, device, mode):
    p = herald.provider
    first = "bearer " + p.fresh_token(iat=int(time.time()))
    second = "bearer " + p.fresh_token(iat=int(time.time()) - 5)
    assert first != second
    with connect(herald, mode) as c:
        ok = c.push(device.device_token, herald.headers(authorization=first), alert_payload())
        assert ok.status == 200, ok
        st = c.push(device.device_token, herald.headers(authorization=second), alert_payload())
        assert (st.status, st.reason) == (429, "TooManyProviderTokenUpdates"), st
        again = c.push(device.device_token, herald.headers(authorization=first), alert_payload())
        assert again.status == 200, f"the connection's current token must keep working: {again}"


def test_token_of_another_team_on_the_same_connection_is_invalid(herald, device):
    team_b = herald.new_team()
    pb = herald.new_key(team_b)
    app_b = herald.new_app(team_b)
    dev_b = herald.new_device(bundle_id=app_b)
    with connect(herald, "h2c") as c:
        assert c.push(device.device_token, herald.headers(), alert_payload()).status == 200
        st = c.push(dev_b.device_token, herald.headers(provider=pb, topic=app_b), alert_payload())
        assert (st.status, st.reason) == (403, "InvalidProviderToken"), st
    # on its own connection team B's token is fine
    with connect(herald, "h2c") as c:
        st = c.push(dev_b.device_token, herald.headers(provider=pb, topic=app_b), alert_payload())
        assert st.status == 200, st


# ---- TLS ALPN ----------------------------------------------------------------------------------

def alpn_of(env, offer):
    parts = urlsplit(env.apns_tls_url)
    ctx = ssl.create_default_context(cafile=env.ca_path)
    ctx.set_alpn_protocols(offer)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname=parts.hostname) as s:
            return s.selected_alpn_protocol(), s.version()


def test_certificate_is_valid_for_localhost_too(herald, device):
    url = herald.apns_tls_url.replace("127.0.0.1", "localhost")
    with H2Client(url, cafile=herald.ca_path, alpn=["h2"]) as c:
        assert c.push(device.device_token, herald.headers(), alert_payload()).status == 200


def test_alpn_selects_h2_when_offered(herald):
    assert alpn_of(herald, ["h2", "http/1.1"])[0] == "h2"
    assert alpn_of(herald, ["http/1.1", "h2"])[0] == "h2"


def test_alpn_selects_http11_when_only_that_is_offered(herald):
    assert alpn_of(herald, ["http/1.1"])[0] == "http/1.1"


def test_tls_is_at_least_1_2(herald):
    assert alpn_of(herald, ["h2"])[1] in ("TLSv1.2", "TLSv1.3")


@pytest.mark.parametrize("transport,version", [("tls", "2"), ("tls-http1", "1.1"), ("h2c", "2"), ("http1", "1.1")])
def test_curl_negotiates_the_expected_http_version(herald, device, transport, version):
    res = curl(transport, herald.urls, f"/3/device/{device.device_token}", herald.headers(),
               b'{"aps":{"alert":"curl"}}', ca_path=herald.ca_path)
    assert res.version == version and res.status == 200, (res.version, res)


def test_http11_keeps_the_connection_alive_for_several_pushes(herald, device):
    # curl reuses one connection for several URLs on one command line
    import subprocess
    url = herald.apns_url + f"/3/device/{device.device_token}"
    hdrs = []
    for k, v in herald.headers():
        hdrs += ["-H", f"{k}: {v}"]
    out = subprocess.run(["curl", "-sS", "--noproxy", "*", "--http1.1", "-w", "%{http_code} %{num_connects}\n",
                          "-o", "/dev/null", *hdrs, "--data-binary", '{"aps":{"alert":"ka"}}', url,
                          "-o", "/dev/null", url, "-o", "/dev/null", url],
                         capture_output=True, text=True, timeout=30)
    lines = out.stdout.split()
    assert out.returncode == 0, out.stderr
    codes, connects = lines[0::2], lines[1::2]
    assert codes == ["200", "200", "200"], out.stdout
    assert connects == ["1", "0", "0"], f"HTTP/1.1 connection not reused: {out.stdout}"


def test_request_bodies_beyond_the_initial_windows_keep_flowing(herald, client, device):
    """Herald answers every stream of a connection itself (no per-stream channel), so it must open
    the receive windows again: 120 pushes of ~3 KB (~360 KB > the 64 KiB connection window) all
    arrive, and one stream of 1.5 MB (> the 1 MiB stream window) is read to its end and refused."""
    ids = [new_apns_id() for _ in range(120)]
    sids = [client.start_request(f"/3/device/{device.device_token}", herald.headers(apns_id=i),
                                 b'{"aps":{"alert":"%s"}}' % (b"x" * 3000)) for i in ids]
    streams = client.wait(sids, timeout=60)
    assert [s.status for s in streams] == [200] * len(ids), [s for s in streams if s.status != 200][:3]
    big = client.request(f"/3/device/{device.device_token}", herald.headers(apns_id=new_apns_id()),
                         b'{"aps":{"alert":"' + b"y" * 1_500_000 + b'"}}', timeout=60)
    assert big.status == 413 and big.reason == "PayloadTooLarge", big
    assert client.push(device.device_token, herald.headers(), alert_payload()).status == 200
