"""The served OpenAPI document as a client generator or a tool like schemathesis reads it."""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import urljoin

import yaml


def test_the_served_servers_url_reaches_the_server_that_served_it(herald):
    # The session's server listens on a random port: a document naming a fixed address would miss it.
    doc_url = herald.api_url + "/openapi.yaml"
    with urllib.request.urlopen(doc_url, timeout=10) as r:
        assert r.status == 200
        document = yaml.safe_load(r.read())
    servers = document.get("servers")
    assert servers, "the document names no server"
    for server in servers:
        base = urljoin(doc_url, server["url"])
        with urllib.request.urlopen(urljoin(base.rstrip("/") + "/", "healthz"), timeout=10) as r:
            assert r.status == 200, base
            assert json.loads(r.read()) == {"status": "ok"}, base


# ---------------------------------------------------------------------------------------------
# Real responses checked against the document's schemas (jsonschema, OpenAPI 3.1 = JSON Schema 2020-12)
# ---------------------------------------------------------------------------------------------

import time  # noqa: E402

import pytest  # noqa: E402
from jsonschema import Draft202012Validator  # noqa: E402
from websockets.sync.client import connect as ws_connect  # noqa: E402

from herald_support import H2Client, SSEClient, new_apns_id  # noqa: E402


class OpenAPIDocument:
    """The served document; validates a response of an operation against the schema it documents."""

    def __init__(self, api_url: str):
        with urllib.request.urlopen(api_url + "/openapi.yaml", timeout=10) as r:
            self.doc = yaml.safe_load(r.read())
        Draft202012Validator.check_schema({"components": self.doc["components"]})
        self.checked: list[str] = []

    def schema(self, method: str, template: str, status: int) -> dict | None:
        op = self.doc["paths"][template][method.lower()]
        response = op["responses"].get(str(status))
        assert response is not None, f"{method} {template} answered {status}, which the document does not list"
        if "$ref" in response:
            response = self.resolve(response["$ref"])
        content = response.get("content")
        return None if content is None else next(iter(content.values()))["schema"]

    def resolve(self, ref: str) -> dict:
        node = self.doc
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return node

    def validate(self, instance, schema: dict, what: str) -> None:
        root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": self.doc["components"], **schema}
        errors = sorted(Draft202012Validator(root).iter_errors(instance), key=lambda e: list(e.absolute_path))
        assert not errors, f"{what}: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:300]}" for e in errors[:5])
        self.checked.append(what)

    def check(self, result, method: str, template: str) -> None:
        """`result` (an HTTPResult) against the schema of its status."""
        schema = self.schema(method, template, result.status)
        if schema is None:
            assert not result.body, f"{method} {template} {result.status} has a body the document does not describe"
            return
        self.validate(result.json(), schema, f"{method} {template} {result.status}")

    def component(self, name: str) -> dict:
        return {"$ref": f"#/components/schemas/{name}"}


@pytest.fixture(scope="module")
def openapi(herald) -> OpenAPIDocument:
    return OpenAPIDocument(herald.api_url)


def test_every_response_of_a_realistic_session_matches_its_schema(herald, openapi):
    """A category with actions and a placeholder, a message from an allowed person during a Focus, a
    held push, a hidden preview, the list, one notification, read/dismiss, the decision endpoint, the
    threads, badges, settings, state, Focus, summary — each real answer validated, errors included."""
    token, admin = herald.device.user_token, herald.admin_token
    device = herald.new_device()
    user = device.user_token
    did, bundle = device.device_id, device.bundle_id

    def call(method, path, template, *, body=None, token=user, expect=None):
        r = herald.api(method, path, body=body, token=token)
        if expect is not None:
            assert r.status == expect, (method, path, r)
        openapi.check(r, method, template)
        return r

    category = {"actions": [
        {"identifier": "like", "title": "Like", "options": [], "icon": {"system_image_name": "hand.thumbsup"}},
        {"identifier": "reply", "title": "Reply", "options": ["foreground"],
         "text_input": {"button_title": "Send", "placeholder": "Message"}},
        {"identifier": "delete", "title": "Delete", "options": ["destructive", "authentication_required"]}],
        "hidden_previews_body_placeholder": "%u new messages", "options": ["hidden_previews_show_title"]}
    call("PUT", f"/v1/admin/apps/{bundle}/categories/chat", "/v1/admin/apps/{bundle_id}/categories/{identifier}",
         body=category, token=admin)
    call("GET", f"/v1/admin/apps/{bundle}/categories", "/v1/admin/apps/{bundle_id}/categories", token=admin, expect=200)
    for path in ("/v1/admin/apps", "/v1/admin/users", "/v1/admin/devices", "/v1/admin/teams"):
        call("GET", path, path, token=admin, expect=200)

    call("GET", "/v1/me/preferences", "/v1/me/preferences", expect=200)
    call("PUT", "/v1/me/preferences", "/v1/me/preferences", body={"show_previews": "when_unlocked"}, expect=200)
    call("PUT", "/v1/me/preferences", "/v1/me/preferences", body={"show_previews": "sometimes"}, expect=400)
    call("GET", f"/v1/me/apps/{bundle}/settings", "/v1/me/apps/{bundle_id}/settings", expect=200)
    call("GET", f"/v1/devices/{did}/state", "/v1/devices/{device_id}/state", expect=200)
    call("PUT", f"/v1/devices/{did}/state", "/v1/devices/{device_id}/state",
         body={"locked": True, "audio_route": "headphones", "time_zone": "Asia/Kolkata"}, expect=200)
    call("PUT", "/v1/me/focus-modes/work", "/v1/me/focus-modes/{id}",
         body={"allowed_people": [{"type": "phone", "value": "+1 555-010-0200"}]})
    call("POST", "/v1/me/focus-modes/work/on", "/v1/me/focus-modes/{id}/on", expect=200)
    call("GET", "/v1/me/focus-modes", "/v1/me/focus-modes", expect=200)
    call("GET", "/v1/me/focus", "/v1/me/focus", expect=200)
    call("GET", "/v1/me/summary", "/v1/me/summary", expect=200)
    call("GET", "/v1/me/summary/next", "/v1/me/summary/next", expect=200)

    sse = SSEClient(herald.api_url, did, user)
    assert sse.status == 200
    sse.wait_connected()
    pushes = [
        {"aps": {"alert": {"title": "Ana", "body": "On my way"}, "category": "chat", "thread-id": "t1", "badge": 2},
         "communication": {"kind": "message", "group": "Lunch crew",
                           "sender": {"handle": "(555) 010-0200", "handle_type": "phone", "display_name": "Ana"}}},
        {"aps": {"alert": "Sale", "sound": "default"}},
        {"aps": {"alert": {"title-loc-key": "NOPE", "body": "x"}, "category": "chat", "thread-id": "t1"}},
    ]
    ids = []
    with H2Client(herald.apns_url) as h2:
        for payload in pushes:
            apns_id = new_apns_id()
            st = h2.push(device.device_token, herald.headers(apns_id=apns_id), payload)
            assert st.status == 200, st
            ids.append(apns_id)
    events = sse.collect(len(ids))
    sse.close()
    for ev in events:
        openapi.validate(ev.json(), openapi.component("Notification"), f"SSE {ev.event} event")
    with ws_connect(f"ws{herald.api_url.removeprefix('http')}/v1/devices/{did}/stream?access_token={user}&cursor=0") as ws:
        for _ in ids:
            openapi.validate(json.loads(ws.recv(timeout=5)), openapi.component("StreamMessage"), "WebSocket message")

    page = call("GET", f"/v1/devices/{did}/notifications", "/v1/devices/{device_id}/notifications", expect=200).json()
    listed = {n["id"]: n for n in page["notifications"]}
    first = listed[ids[0]]
    assert first["decision"]["context"]["sender"] == {"name": "Ana", "handle": "5550100200", "handle_type": "phone"}, first
    assert [a["identifier"] for a in first["decision"]["actions"]] == ["like", "reply", "delete"]
    assert listed[ids[1]]["disposition"] == "heldForFocus"
    assert any(n["decision"]["preview"]["hidden"] for n in listed.values()), "locked + when_unlocked hides previews"
    for apns_id in ids:
        one = call("GET", f"/v1/devices/{did}/notifications/{apns_id}", "/v1/devices/{device_id}/notifications/{id}",
                   expect=200).json()
        decision = call("GET", f"/v1/notifications/{apns_id}/decision", "/v1/notifications/{id}/decision",
                        expect=200).json()
        # One shape: the list, one notification, the streams and the decision endpoint agree
        assert one["decision"] == listed[apns_id]["decision"] == decision["decision"]
        assert next(json.loads(e.data) for e in events if json.loads(e.data)["id"] == apns_id)["decision"] == one["decision"]
    call("POST", f"/v1/devices/{did}/notifications/{ids[0]}/read", "/v1/devices/{device_id}/notifications/{id}/read",
         expect=200)
    call("POST", f"/v1/devices/{did}/notifications/{ids[0]}/dismiss",
         "/v1/devices/{device_id}/notifications/{id}/dismiss", expect=200)
    call("GET", f"/v1/devices/{did}/threads", "/v1/devices/{device_id}/threads", expect=200)
    call("GET", f"/v1/devices/{did}/badges", "/v1/devices/{device_id}/badges", expect=200)
    call("POST", "/v1/me/focus-modes/work/off", "/v1/me/focus-modes/{id}/off", expect=200)
    deadline = time.monotonic() + 10  # the Focus service releases held notifications in the background
    while True:
        released = call("GET", f"/v1/notifications/{ids[1]}/decision", "/v1/notifications/{id}/decision",
                        expect=200).json()
        if released["disposition"] != "heldForFocus" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert released["disposition"] != "heldForFocus", released
    assert released["decision"]["context"]["released_from"]["id"] == "work", released

    # Errors are documented too
    call("GET", f"/v1/devices/{did}/notifications/nope", "/v1/devices/{device_id}/notifications/{id}", expect=404)
    call("GET", f"/v1/devices/{did}/notifications?limit=0", "/v1/devices/{device_id}/notifications", expect=400)
    call("GET", "/v1/me/preferences", "/v1/me/preferences", token="wrong", expect=401)
    call("GET", "/v1/notifications/nope/decision", "/v1/notifications/{id}/decision", expect=404)
    call("DELETE", f"/v1/devices/{did}/notifications/{ids[2]}", "/v1/devices/{device_id}/notifications/{id}",
         expect=204)
    assert len(openapi.checked) >= 40, openapi.checked


def test_the_clock_routes_answer_as_documented(herald, herald_factory, openapi):
    """`/v1/admin/clock` on the wall-clock server (read; 409 to move) and on a `--clock manual` one
    (read, set, advance; backwards and bad bodies 400; no token 401)."""
    manual = herald_factory("clock-openapi", extra_args=["--clock", "manual"])

    def call(env, method, path, template, *, body=None, token=None, expect=None):
        r = env.api(method, path, body=body, token=env.admin_token if token is None else token)
        if expect is not None:
            assert r.status == expect, (method, path, r)
        openapi.check(r, method, template)
        return r

    call(herald, "GET", "/v1/admin/clock", "/v1/admin/clock", expect=200)
    call(herald, "PUT", "/v1/admin/clock", "/v1/admin/clock", body={"now": "2099-01-01T00:00:00Z"}, expect=409)
    call(herald, "POST", "/v1/admin/clock/advance", "/v1/admin/clock/advance", body={"seconds": 60}, expect=409)
    now = call(manual, "GET", "/v1/admin/clock", "/v1/admin/clock", expect=200).json()["now"]
    call(manual, "POST", "/v1/admin/clock/advance", "/v1/admin/clock/advance", body={"seconds": 5400}, expect=200)
    call(manual, "PUT", "/v1/admin/clock", "/v1/admin/clock", body={"now": "2099-01-01T00:00:00Z"}, expect=400)
    call(manual, "PUT", "/v1/admin/clock", "/v1/admin/clock", body={"now": now}, expect=400)
    call(manual, "POST", "/v1/admin/clock/advance", "/v1/admin/clock/advance", body={"seconds": "1h"}, expect=400)
    call(manual, "GET", "/v1/admin/clock", "/v1/admin/clock", token="wrong", expect=401)
    assert len([c for c in openapi.checked if "/v1/admin/clock" in c]) == 9
