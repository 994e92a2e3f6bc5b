"""Two Herald nodes on one PostgreSQL database behind HAProxy, run with the repository's own
configuration (`deploy/haproxy/herald.cfg`, Debian's haproxy 2.6) as README's "Several nodes" section
tells an operator to: pushes over TLS (passed through to Herald) and h2c reach the devices' lists and
a live SSE session opened through the balancer; the balancer's health checks (`GET /readyz`) take a
stopped node out, and every push and stream request still succeeds through the other; the node
started again takes traffic again."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time

import pytest

from conftest import HeraldEnv
from herald_support import REPO, REPORT, ConnectionClosed, H2Client, HeraldServer, SSEClient, new_apns_id, postgres_url, wait_until

pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is not installed (scripts/setup)")

CONFIG = REPO / "deploy" / "haproxy" / "herald.cfg"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def address(url: str) -> str:
    return url.split("://", 1)[1].rstrip("/")


class Balancer:
    """HAProxy on free ports in front of nodes A and B (their runtime URLs)."""

    def __init__(self, tmp_path):
        self.ports = {"api": free_port(), "apns": free_port(), "apns_tls": free_port()}
        self.log = open(tmp_path / "haproxy.log", "ab")
        self.proc: subprocess.Popen | None = None

    def start(self, a: HeraldServer, b: HeraldServer):
        env = dict(os.environ)
        for name, node in (("A", a), ("B", b)):
            env[f"HERALD_{name}_API"] = address(node.runtime["api_url"])
            env[f"HERALD_{name}_APNS"] = address(node.runtime["apns_url"])
            env[f"HERALD_{name}_APNS_TLS"] = address(node.runtime["apns_tls_url"])
        env["HERALD_LISTEN_API"] = f"127.0.0.1:{self.ports['api']}"
        env["HERALD_LISTEN_APNS"] = f"127.0.0.1:{self.ports['apns']}"
        env["HERALD_LISTEN_APNS_TLS"] = f"127.0.0.1:{self.ports['apns_tls']}"
        self.proc = subprocess.Popen(["haproxy", "-db", "-f", str(CONFIG)], env=env, stdout=self.log,
                                     stderr=self.log, stdin=subprocess.DEVNULL)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.log.close()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['api']}"

    @property
    def apns_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['apns']}"

    @property
    def apns_tls_url(self) -> str:
        return f"https://127.0.0.1:{self.ports['apns_tls']}"


def test_two_nodes_behind_haproxy_take_pushes_and_streams_and_survive_a_stopped_node(tmp_path):
    data = tmp_path / "data"
    url = postgres_url(data)
    a = HeraldServer(data, ["--database", url], name="node-a").start()
    b = HeraldServer(data, ["--database", url], name="node-b").start()
    balancer = Balancer(tmp_path)
    try:
        # Node A made the demo setup; the balancer's URLs stand for both.
        demo = dict(a.demo())
        env_a = HeraldEnv(a, dict(demo))
        balancer.start(a, b)
        demo.update({"api_url": balancer.api_url, "apns_url": balancer.apns_url,
                     "apns_tls_url": balancer.apns_tls_url})
        env = HeraldEnv(a, demo)
        wait_until(lambda: _ready(env), timeout=15, what="HAProxy answers /readyz from a node")
        device = env_a.new_device()

        def push(client: H2Client, text: str) -> str:
            apns_id = new_apns_id()
            r = client.push(device.device_token, env.headers(apns_id=apns_id), {"aps": {"alert": text}})
            assert r.status == 200, (r.status, r.body)
            return apns_id

        sent: list[str] = []
        with SSEClient(env.api_url, device.device_id, device.user_token) as stream:
            stream.wait_connected()
            # Several provider connections, TLS and h2c: HAProxy spreads them over both nodes.
            for index in range(4):
                tls = H2Client(env.apns_tls_url, cafile=env.ca_path, alpn=["h2"])
                assert tls.alpn_selected == "h2"  # Herald's own TLS, passed through
                clear = H2Client(env.apns_url)
                sent += [push(tls, f"tls {index}"), push(clear, f"h2c {index}")]
                tls.close()
                clear.close()
            received = [json.loads(e.data)["id"] for e in stream.drain(1.5) if e.event == "notification"]
        assert received == sent, "the stream through the balancer got every push once, in order"
        assert set(sent) <= set(env.listed_ids(device))

        # Node B stops: what it refuses goes to node A (`option redispatch`), and the health check
        # takes it out within 4 s; requests through the balancer meanwhile, counted.
        assert b.stop(timeout=15) == 0
        stopped = time.monotonic()
        tried = failures = 0
        while time.monotonic() < stopped + 6:
            tried += 1
            failures += 0 if _all_ok(env, device, push) else 1
            time.sleep(0.05)
        # Once the checks have noticed, every request succeeds.
        for _ in range(10):
            assert _all_ok(env, device, push)

        # Node B starts again and takes traffic again.
        b.start()
        balancer.stop()
        balancer = Balancer(tmp_path)  # (B's ports changed: port 0)
        balancer.start(a, b)
        env.demo.update({"api_url": balancer.api_url, "apns_url": balancer.apns_url,
                         "apns_tls_url": balancer.apns_tls_url})
        env = HeraldEnv(a, env.demo)
        wait_until(lambda: _ready(env), timeout=15, what="HAProxy with node B back")
        REPORT.append(f"HAProxy (deploy/haproxy/herald.cfg) before two nodes: 8 pushes over TLS and h2c reached "
                      f"a session through it in order; node B stopped: {failures} of {tried} push+API request "
                      f"pairs through it failed in the 6 s after, none once the checks had noticed")
    finally:
        balancer.stop()
        for server in (a, b):
            if server.proc and server.proc.poll() is None:
                assert server.stop(timeout=15) == 0, server.log_tail()


def _ready(env) -> bool:
    try:
        return env.api("GET", "/readyz").status == 200
    except OSError:
        return False


def _all_ok(env, device, push) -> bool:
    """One push on a new h2c connection and one API request, both through the balancer, succeed."""
    try:
        client = H2Client(env.apns_url, timeout=5)
        push(client, "check")
        client.close()
        return env.api("GET", f"/v1/devices/{device.device_id}/notifications", token=device.user_token).status == 200
    except (OSError, AssertionError, ConnectionClosed):
        return False
