"""Schemathesis against the served OpenAPI document (`/openapi.yaml`) and the live session server.

Every operation is called with generated parameters and bodies (positive and negative) and its
authentication: the admin token for /v1/admin/*, the fuzzer's app credential for /v1/app/* (an app
of its own on the fuzzer's device), otherwise the token of a user made for this run ("the
fuzzer"). Device and notification ids in paths are, half the time, the fuzzer's own (so the
calls reach real resources) and otherwise those of another user ("the victim"). Checks: no 5xx, every
response matches the schema of its status in the document, and the victim's data is the same after
the run as before (another user's requests never change it). Cost: bounded by MAX_EXAMPLES per
operation (about 30 s on the debug build)."""

from __future__ import annotations

import random

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from herald_support import H2Client, alert_payload, new_apns_id

MAX_EXAMPLES = 8


class Actors:
    def __init__(self, herald):
        self.herald = herald
        self.fuzzer = herald.new_device()
        self.victim = herald.new_device()
        ids = []
        with H2Client(herald.apns_url) as c:
            for device in (self.fuzzer, self.victim):
                for i in range(3):
                    apns_id = new_apns_id()
                    st = c.push(device.device_token, herald.headers(apns_id=apns_id), alert_payload(f"n{i}"))
                    assert st.status == 200, st
                    ids.append(apns_id)
        self.fuzzer_ids, self.victim_ids = ids[:3], ids[3:]
        # The fuzzer's app API is an app of its own: replacing its categories touches no other test.
        self.fuzzer_app = herald.app_credential(self.fuzzer.device_id, herald.new_app(herald.new_team()))
        self.victim_app = herald.app_credential(self.victim.device_id)
        # Answered (provisionally) before the run: an unanswered app's authorization call waits up to
        # `wait` seconds for the person, longer than a generated call may take.
        r = herald.api("POST", "/v1/app/authorization", token=self.fuzzer_app, body={"options": ["provisional"]})
        assert r.status == 200, r
        r = herald.api("POST", "/v1/app/requests", token=self.victim_app, body={
            "identifier": "victim-pending", "content": {"body": "mine"},
            "trigger": {"type": "time_interval", "time_interval": 86400, "repeats": False}})
        assert r.status == 201, r
        self.victim_before = self.victim_state()

    def victim_state(self) -> dict:
        h, v = self.herald, self.victim
        state = {"notifications": h.all_notifications(v)}
        for path in ("/v1/app/requests", "/v1/app/notifications"):
            r = h.api("GET", path, token=self.victim_app)
            state[path] = (r.status, r.json() if r.status == 200 else None)
        for path in ("/v1/me/preferences", f"/v1/devices/{v.device_id}/state", "/v1/me/focus"):
            r = h.api("GET", path, token=v.user_token)
            state[path] = (r.status, r.json() if r.status == 200 else None)
        return state


@pytest.fixture(scope="module")
def actors(herald):
    return Actors(herald)


@pytest.fixture(scope="module")
def api_schema(herald, actors):
    schema = schemathesis.openapi.from_url(f"{herald.api_url}/openapi.yaml")
    schema.config.update(base_url=herald.api_url)
    return schema


schema = schemathesis.pytest.from_fixture("api_schema")


def fill_path(case, actors) -> None:
    """Points ids in the path at real resources: the fuzzer's own, or the victim's."""
    params = case.path_parameters or {}
    own = random.random() < 0.5
    if "device_id" in params:
        params["device_id"] = (actors.fuzzer if own else actors.victim).device_id
    for key in ("notification_id", "id"):
        if key in params and random.random() < 0.7:
            params[key] = random.choice(actors.fuzzer_ids if own else actors.victim_ids)
    if "token" in params and case.path.startswith("/v1/admin/tokens"):
        # Unregistering a real token would break the victim's pushes for the rest of the session.
        params["token"] = "00" * 32


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_every_operation(case, herald, actors):
    fill_path(case, actors)
    if case.path.startswith("/v1/admin"):
        token = herald.admin_token
    elif case.path.startswith("/v1/app/"):
        token = actors.fuzzer_app
    else:
        token = actors.fuzzer.user_token

    # The app's live connection never ends on its own (each call would wait for the client's
    # timeout); LocalNotificationTests and test_local_notifications drive it.
    if case.path == "/v1/app/stream":
        pytest.skip("the app's live stream never ends: tested by the Swift and interop stream tests")
    # The admin clock would move time for every other test of the session.
    if case.path.startswith("/v1/admin/clock") and case.method.upper() != "GET":
        pytest.skip("moving the session server's clock would change other tests")
    response = case.call(headers={"Authorization": f"Bearer {token}"}, timeout=15)
    case.validate_response(response, checks=[not_a_server_error, response_schema_conformance,
                                             content_type_conformance])


def test_the_victims_data_did_not_change(actors):
    """Runs after the generated calls (file order): nothing the fuzzer sent changed the victim's data."""
    assert actors.victim_state() == actors.victim_before
