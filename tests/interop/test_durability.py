"""Nothing acknowledged is lost: kill -9 the server while providers push, restart, every 200 is listed."""

from __future__ import annotations

import random
import threading
import time

from herald_support import wait_until, REPORT, ConnectionClosed, H2Client, new_apns_id

ROUNDS = 3
IN_FLIGHT = 16


class Pusher(threading.Thread):
    """Pushes continuously on one HTTP/2 connection, recording each apns-id the server answered 200."""

    def __init__(self, env, url: str, device, payload: bytes):
        super().__init__(daemon=True)
        self.env, self.url, self.device, self.payload = env, url, device, payload
        self.stop = threading.Event()
        self.acked: list[str] = []
        self.refused: list[tuple[str, int, str | None]] = []
        self.ended_by: str = ""

    def run(self):
        try:
            c = H2Client(self.url, cafile=self.env.ca_path, timeout=5)
        except OSError as e:
            self.ended_by = f"connect: {e}"
            return
        pending: dict[int, str] = {}
        headers = self.env.headers
        try:
            while not self.stop.is_set():
                while len(pending) < IN_FLIGHT:
                    apns_id = new_apns_id()
                    sid = c.start_request(f"/3/device/{self.device.device_token}", headers(apns_id=apns_id),
                                          self.payload)
                    pending[sid] = apns_id
                c.pump_until(lambda: any(c.streams[s].ended for s in pending))
                self._collect(c, pending)
        except (ConnectionClosed, TimeoutError, OSError) as e:
            self.ended_by = type(e).__name__
        except Exception as e:  # h2 protocol errors on a torn connection
            self.ended_by = f"{type(e).__name__}: {e}"
        finally:
            self._collect(c, pending)
            c.close()

    def _collect(self, c, pending):
        for sid in [s for s in pending if c.streams[s].ended]:
            st = c.streams.pop(sid)
            apns_id = pending.pop(sid)
            if st.status == 200:
                self.acked.append(apns_id)
            elif st.status:
                self.refused.append((apns_id, st.status, st.reason))


def test_every_acknowledged_push_survives_kill_9(herald_factory):
    env = herald_factory("durability")
    devices = [env.new_device() for _ in range(4)]
    payload = b'{"aps":{"alert":{"title":"durable","body":"' + b"x" * 200 + b'"}}}'
    total_acked = 0
    rng = random.Random()
    for round_no in range(1, ROUNDS + 1):
        # Given four providers pushing concurrently (two over h2c, two over TLS)
        urls = [env.apns_url, env.apns_url, env.apns_tls_url, env.apns_tls_url]
        pushers = [Pusher(env, u, d, payload) for u, d in zip(urls, devices)]
        for p in pushers:
            p.start()
        # When the server is killed with SIGKILL at a random moment once pushes are being acknowledged
        # (a node on PostgreSQL opens its connections first: its first 200 can take longer than 0.4 s)
        started = time.monotonic()
        wait_until(lambda: any(p.acked for p in pushers), timeout=15, what="a first push acknowledged")
        time.sleep(rng.uniform(0.0, 2.1))
        delay = time.monotonic() - started
        env.server.kill9()
        for p in pushers:
            p.stop.set()
            p.join(15)
            assert not p.is_alive(), "pusher did not notice the dead server"
        refused = [r for p in pushers for r in p.refused]
        assert not refused, f"pushes refused before the kill: {refused[:5]}"
        acked = {d.device_id: p.acked for p, d in zip(pushers, devices)}
        n_acked = sum(len(v) for v in acked.values())
        assert n_acked > 0, f"no push acknowledged in {delay:.2f}s: {[p.ended_by for p in pushers]}"
        # Then after a restart on the same data dir, every acknowledged push is listed
        env.restart()
        lost = {}
        listed_total = 0
        for d in devices:
            listed = set(env.listed_ids(d))
            listed_total += len(listed)
            missing = [i for i in acked[d.device_id] if i not in listed]
            if missing:
                lost[d.device_id] = missing
        total_acked += n_acked
        REPORT.append(f"durability round {round_no}: killed after {delay:.2f}s, {n_acked} acknowledged, "
                      f"{sum(map(len, lost.values()))} lost, {listed_total} listed in total")
        assert not lost, f"round {round_no}: acknowledged but lost after kill -9: " \
                         f"{ {k: (len(v), v[:3]) for k, v in lost.items()} }"
    REPORT.append(f"durability: {total_acked} acknowledged pushes over {ROUNDS} kills, none lost")
