"""`herald migrate --from DIR --to postgres://…`, as README's "Several nodes" section tells an operator
to run it: a data directory served on SQLite (pushes, a read mark, a Focus, an app's pending request)
is stopped, copied into an empty PostgreSQL database, and served from there by `herald serve --data DIR
--database URL`: the same lists with the same cursors, the same Focus and pending request, a stream
resumed from a cursor taken before the move gets only what came after, and pushes carry on. It refuses
a database that already holds Herald data and a data directory whose server runs, and writes nothing
then. Runs in the SQLite pass only (its source is SQLite by design)."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from conftest import HeraldEnv
from herald_support import REPORT, H2Client, HeraldServer, SSEClient, database_engine, herald_bin, postgres_url

pytestmark = pytest.mark.skipif(database_engine() == "postgres", reason="the source of a migration is SQLite")


def migrate(data, url: str) -> subprocess.CompletedProcess:
    return subprocess.run([herald_bin(), "migrate", "--from", str(data), "--to", url],
                          capture_output=True, text=True, timeout=120)


def test_migrate_moves_a_data_directory_into_postgresql_and_the_node_carries_on(tmp_path):
    data = tmp_path / "data"
    server = HeraldServer(data).start()
    env = HeraldEnv(server, server.demo())
    device = env.new_device()
    token = device.user_token
    h2 = H2Client(env.apns_url)
    for index in range(25):
        assert h2.push(device.device_token, env.headers(), {"aps": {"alert": f"before {index}"}}).status == 200
    h2.close()
    first = env.all_notifications(device)[0]
    assert env.api("POST", f"/v1/devices/{device.device_id}/notifications/{first['id']}/read", token=token).status == 200
    assert env.api("PUT", "/v1/me/focus-modes/work", token=token, body={}).status in (200, 201)
    credential = env.app_credential(device.device_id)
    r = env.api("POST", "/v1/app/requests", token=credential,
                body={"identifier": "tomorrow", "content": {"body": "Later"},
                      "trigger": {"type": "time_interval", "time_interval": 86400, "repeats": False}})
    assert r.status == 201, r

    def state(env) -> tuple:
        return (env.all_notifications(device),
                env.api("GET", "/v1/me/focus-modes", token=token).json(),
                env.api("GET", "/v1/app/requests", token=credential).json())

    before = state(env)
    # The cursor a client holds at the move: its last event's id.
    with SSEClient(env.api_url, device.device_id, token, cursor="0") as stream:
        stream.wait_connected()
        held = [e for e in stream.drain(1) if e.event == "notification"]
    assert len(held) == 25
    cursor = held[-1].id

    url = postgres_url(tmp_path / "target")
    refused = migrate(data, url)
    assert refused.returncode != 0 and "Herald is running" in refused.stderr, refused
    assert server.stop(timeout=15) == 0

    started = time.monotonic()
    moved = migrate(data, url)
    took = time.monotonic() - started
    assert moved.returncode == 0, moved.stderr
    assert "notifications: 25" in moved.stdout and f"--database '{url}'" in moved.stdout, moved.stdout

    node = HeraldServer(data, ["--database", url], name="on-postgres").start()
    demo = dict(env.demo)
    try:
        demo.update({key: node.runtime[key] for key in ("api_url", "apns_url", "apns_tls_url")})
        after = HeraldEnv(node, demo)
        assert state(after) == before
        # A client resumes from the cursor it held: only what came after the move.
        h2 = H2Client(after.apns_url)
        assert h2.push(device.device_token, after.headers(), {"aps": {"alert": "after"}}).status == 200
        h2.close()
        with SSEClient(after.api_url, device.device_id, token, cursor=cursor) as stream:
            stream.wait_connected()
            resumed = [e for e in stream.drain(1) if e.event == "notification"]
        assert [json.loads(e.data)["alert"]["body"] for e in resumed] == ["after"], resumed
        assert int(resumed[0].id) > int(cursor)
    finally:
        assert node.stop(timeout=15) == 0
    # A database that holds Herald data now is refused, and left as it is.
    again = migrate(data, url)
    assert again.returncode != 0 and "already holds Herald data" in again.stderr, again
    node.start()
    try:
        demo.update({key: node.runtime[key] for key in ("api_url", "apns_url", "apns_tls_url")})
        assert len(HeraldEnv(node, demo).all_notifications(device)) == 26
    finally:
        assert node.stop(timeout=15) == 0
    REPORT.append(f"herald migrate: a data directory (25 pushes, a Focus, a pending request) copied into "
                  f"PostgreSQL in {took:.1f}s (the command); the node on it served the same lists and cursors")
