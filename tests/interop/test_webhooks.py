"""Apps' webhooks for the person's responses, checked with an independent implementation of Standard
Webhooks (the `standardwebhooks` library): every delivery verifies with the secret Herald gave, a
failed delivery is retried with the same id and body until the webhook answers 2xx, and a wrong secret
does not verify."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from herald_support import note_secret, wait_until


class Receiver:
    """A webhook on 127.0.0.1 that answers 503 to the first `failures` requests, then 204."""

    def __init__(self, failures: int):
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.failures = failures
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                failing = receiver.failures > 0
                receiver.failures -= 1
                self.send_response(503 if failing else 204)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver(failures=1)
    yield r
    r.close()


def test_responses_reach_the_webhook_signed_and_retried(herald, receiver):
    app = herald.new_app(herald.new_team())
    device = herald.new_device(bundle_id=app)
    credential = herald.app_credential(device.device_id, app)
    hook = herald.admin("PUT", f"/v1/admin/apps/{app}/webhook", {"url": receiver.url}, expect=200)
    secret = note_secret(hook["secret"])
    try:
        r = herald.api("POST", "/v1/app/requests", token=credential,
                       body={"identifier": "ping", "content": {"title": "Ping", "body": "b"}})
        assert r.status in (200, 201), r
        [n] = herald.all_notifications(device)
        r = herald.api("POST", f"/v1/devices/{device.device_id}/notifications/{n['id']}/response",
                       token=device.user_token, body={"action_identifier": "default"})
        assert r.status == 201, r
        response_id = r.json()["response"]["id"]

        # The first attempt fails (503); the retry, a second later, is acknowledged.
        wait_until(lambda: len(receiver.requests) >= 2, timeout=15, what="two webhook attempts")
        time.sleep(0.3)
        assert len(receiver.requests) == 2, "acknowledged: no third attempt"
        for headers, body in receiver.requests:
            payload = Webhook(secret).verify(body, headers)
            assert headers["webhook-id"] == response_id
            assert payload["type"] == "notification.response"
            assert payload["data"]["bundle_id"] == app
            assert payload["data"]["device_id"] == device.device_id
            assert payload["data"]["response"]["id"] == response_id
            assert payload["data"]["response"]["action_identifier"] == "com.apple.UNNotificationDefaultActionIdentifier"
            assert payload["data"]["response"]["notification"]["identifier"] == "ping"
        assert receiver.requests[0][1] == receiver.requests[1][1], "every attempt sends the same bytes"
        with pytest.raises(WebhookVerificationError):
            Webhook("whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").verify(receiver.requests[0][1],
                                                                          receiver.requests[0][0])

        status = herald.admin("GET", f"/v1/admin/apps/{app}/webhook", expect=200)
        assert (status["pending"], status["delivered"], status["last_error"]) == (0, 1, "HTTP 503"), status
        assert "secret" not in status
    finally:
        herald.admin("DELETE", f"/v1/admin/apps/{app}/webhook", expect=204)
