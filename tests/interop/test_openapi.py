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
