"""Notification service extensions as a provider sets one up: `herald admin service-extension set`
registers the sessions' extension (`herald-example-extension`, Examples/MediaExtension) for an app,
a push with `mutable-content: 1` sent with curl over HTTP/2 gets its 200 at once, and the device's
list, stream and decision show what the extension made of it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from herald_support import curl, herald_bin, new_apns_id, wait_until


def extension_bin() -> str:
    return str(Path(herald_bin()).parent / "herald-example-extension")


def cli(herald, *args) -> dict:
    out = subprocess.run([herald_bin(), "admin", "service-extension", *args, "--url", herald.api_url,
                          "--admin-token", herald.admin_token], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_an_extension_set_up_with_the_cli_changes_a_curl_push(herald):
    app = herald.new_app(herald.demo["team_id"])
    device = herald.new_device(app)
    r = herald.api("PUT", f"/v1/devices/{device.device_id}/state", token=device.user_token, body={"locked": False})
    assert r.status == 200, r
    registered = cli(herald, "set", "--bundle-id", app, "--executable", extension_bin(), "--timeout", "5",
                     "--processes", "1")
    assert registered["kind"] == "process" and registered["executable"] == extension_bin(), registered
    assert cli(herald, "show", "--bundle-id", app)["timeout_seconds"] == 5

    apns_id = new_apns_id()
    payload = {"aps": {"alert": {"body": "On my way"}, "mutable-content": 1}, "type": "message",
               "sender": {"handle": "ana@example.com", "name": "Ana"}, "group": "Lunch crew"}
    r = curl("h2c", herald.urls, f"/3/device/{device.device_token}",
             herald.headers(topic=app, apns_id=apns_id), json.dumps(payload).encode())
    assert r.status == 200 and r.header("apns-id") == apns_id, r

    def listed():
        return [n for n in herald.all_notifications(device) if n["id"] == apns_id]

    [n] = wait_until(listed, timeout=30, what="the extension's notification")
    assert n["display"] == {"title": "Ana", "subtitle": "Lunch crew", "body": "On my way"}, n
    assert n["payload"]["communication"]["sender"]["handle"] == "ana@example.com", n["payload"]
    ext = n["decision"]["context"]["service_extension"]
    assert ext["outcome"] == "modified" and ext["budget_ms"] == 5000 and ext["error"] is None, ext
    assert "service-extension-modified" in n["decision"]["reason_codes"]

    explained = herald.api("GET", f"/v1/notifications/{apns_id}/decision?device_id={device.device_id}",
                           token=device.user_token).json()
    assert any(r["sentence"].startswith(f"Changed by {app}'s notification service extension in ")
               for r in explained["reasons"]), explained["reasons"]

    removed = cli(herald, "remove", "--bundle-id", app)
    assert removed == {"removed": True}
    assert herald.api("GET", f"/v1/admin/apps/{app}/service-extension", token=herald.admin_token).status == 404


PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + bytes(range(256)) * 4


def test_a_webhook_extension_is_signed_and_attaches_a_file(herald):
    """A provider's webhook extension (Python's http.server here): every request verifies with the
    secret the registration gave (the `standardwebhooks` library), and the file its answer attaches
    in base64 is served with the notification."""
    import base64
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from standardwebhooks.webhooks import Webhook

    from herald_support import note_secret

    received: list[tuple[dict[str, str], bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            received.append(({k.lower(): v for k, v in self.headers.items()}, body))
            payload = json.loads(body)["payload"]
            payload["aps"]["alert"] = {"title": "Photo from Ana"}
            answer = json.dumps({"payload": payload, "attachments": [
                {"identifier": "photo", "data": base64.b64encode(PNG).decode()}]}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        app = herald.new_app(herald.demo["team_id"])
        device = herald.new_device(app)
        url = f"http://127.0.0.1:{server.server_address[1]}/extension"
        registered = herald.admin("PUT", f"/v1/admin/apps/{app}/service-extension", {"url": url}, expect=200)
        secret = note_secret(registered["secret"])
        assert secret.startswith("whsec_") and registered["kind"] == "webhook"
        shown = herald.admin("GET", f"/v1/admin/apps/{app}/service-extension", expect=200)
        assert "secret" not in shown, shown

        apns_id = new_apns_id()
        payload = {"aps": {"alert": {"title": "Ana"}, "mutable-content": 1}}
        r = curl("h2c", herald.urls, f"/3/device/{device.device_token}",
                 herald.headers(topic=app, apns_id=apns_id), json.dumps(payload).encode())
        assert r.status == 200, r

        def listed():
            return [n for n in herald.all_notifications(device) if n["id"] == apns_id]

        [n] = wait_until(listed, timeout=30, what="the webhook extension's notification")
        [(headers, body)] = received
        verified = Webhook(secret).verify(body, headers)
        assert verified["type"] == "notification.service_extension" and verified["id"] == apns_id
        assert headers["webhook-id"] == apns_id
        assert n["payload"]["aps"]["alert"] == {"title": "Photo from Ana"}, n["payload"]
        assert n["decision"]["context"]["service_extension"]["outcome"] == "modified"
        [attachment] = n["attachments"]
        assert attachment["identifier"] == "photo" and attachment["type"] == "public.png", attachment
        assert attachment["size"] == len(PNG)
        file = herald.api("GET", attachment["url"], token=device.user_token)
        assert file.status == 200 and file.body == PNG, file
    finally:
        server.shutdown()
        server.server_close()
