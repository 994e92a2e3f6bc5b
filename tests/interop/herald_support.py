"""Helpers for driving a real `herald` binary: process control, APNs JWTs, curl, raw HTTP/2,
the JSON API and the live streams. Only the standard library plus `cryptography` and `h2`."""

from __future__ import annotations

import base64
import http.client
import json
import os
import queue
import random
import re
import signal
import socket
import ssl
import string
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import urlencode, urlsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

import h2.config
import h2.connection
import h2.events
import h2.settings


# Figures printed at the end of the run (durability counts etc.).
REPORT: list[str] = []
# Every secret the suite creates or is given (tokens, JWTs, device tokens, private-key lines): the
# session server runs at `--log-level trace`, and its log must contain none of them.
SECRETS: set[str] = set()


def note_secret(value: str | None) -> str | None:
    if value:
        SECRETS.add(value)
    return value


def note_key_lines(pem: str) -> None:
    """The base64 lines of a PEM private key (the armour lines are not secret)."""
    for line in pem.splitlines():
        if len(line) >= 40 and not line.startswith("-----"):
            note_secret(line)


def note_data_dir_secrets(data_dir: Path) -> None:
    """What a server's data directory keeps secret: the admin token, the keys Herald generated for
    providers (`keys/*.p8`) and its TLS private keys (`tls/*-key.pem`)."""
    token = data_dir / "admin-token"
    if token.exists():
        note_secret(token.read_text().strip())
    for pattern in ("keys/*.p8", "tls/*-key.pem"):
        for path in data_dir.glob(pattern):
            note_key_lines(path.read_text())


# Any provider token (a JWT: base64url JSON header `{"…` and claims, then a signature), whoever made it
# (the suite, `herald push`, the demo banner's token), and any PEM private key block.
JWT_PATTERN = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{20,}")
PRIVATE_KEY_PATTERN = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")


def secrets_in(log: str) -> list[str]:
    """The secrets `log` contains: every noted secret (case-insensitively: a device token in capitals
    is still the token), any JWT and any private key block. A device token shortened (its first
    characters and `…`) is not the secret."""
    lowered = log.lower()
    found = {secret for secret in SECRETS if secret.lower() in lowered}
    found.update(JWT_PATTERN.findall(log))
    found.update(PRIVATE_KEY_PATTERN.findall(log))
    return sorted(found)


class SetupError(AssertionError):
    """The environment (binary, tool, server start) is not usable: the test fails with this message."""


# ---------------------------------------------------------------------------------------------
# The herald process
# ---------------------------------------------------------------------------------------------

def herald_bin() -> str:
    path = os.environ.get("HERALD_BIN")
    if not path:
        raise SetupError("HERALD_BIN is not set (scripts/test sets it to .build/debug/herald)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SetupError(f"HERALD_BIN={path} is not an executable file (build it with `swift build`)")
    return os.path.abspath(path)


# ---------------------------------------------------------------------------------------------
# The database engine: HERALD_TEST_DATABASE=postgres runs every server on PostgreSQL
# ---------------------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
_POSTGRES: dict[str, Any] = {}


def database_engine() -> str:
    """`sqlite` (the data directory's file, the default) or `postgres` (HERALD_TEST_DATABASE):
    each data directory then gets a database of its own on one PostgreSQL server of this run,
    started from Debian's server binaries by `scripts/pg-temp` and stopped at exit."""
    engine = os.environ.get("HERALD_TEST_DATABASE", "sqlite")
    if engine not in ("sqlite", "postgres"):
        raise SetupError(f"HERALD_TEST_DATABASE must be sqlite or postgres, not {engine!r}")
    return engine


def postgres_url(data_dir: Path) -> str:
    """The database of `data_dir` (made on first use; a restarted server finds its own again)."""
    script = str(REPO / "scripts" / "pg-temp")
    if "dir" not in _POSTGRES:
        directory = Path(tempfile.mkdtemp(prefix="herald-interop-pg-"))
        os.chmod(directory, 0o755)
        out = subprocess.run([script, "start", str(directory)], capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise SetupError(f"scripts/pg-temp start failed: {out.stderr}")
        import atexit
        atexit.register(lambda: subprocess.run([script, "stop", str(directory)], capture_output=True))
        _POSTGRES["dir"] = directory
        _POSTGRES["urls"] = {}
    key = str(Path(data_dir).resolve())
    urls = _POSTGRES["urls"]
    if key not in urls:
        name = f"h{len(urls) + 1}"
        out = subprocess.run([script, "createdb", str(_POSTGRES["dir"]), name], capture_output=True, text=True,
                             timeout=60)
        if out.returncode != 0:
            raise SetupError(f"scripts/pg-temp createdb failed: {out.stderr}")
        urls[key] = out.stdout.strip()
    return urls[key]


def database_args(data_dir: Path) -> list[str]:
    """The `herald serve` arguments that pick this run's database engine for `data_dir`."""
    return ["--database", postgres_url(data_dir)] if database_engine() == "postgres" else []


class HeraldServer:
    """One `herald serve` process on a data directory, on free ports (on PostgreSQL when
    HERALD_TEST_DATABASE=postgres)."""

    def __init__(self, data_dir: Path, extra_args: Iterable[str] = (), name: str | None = None):
        self.binary = herald_bin()
        self.data_dir = Path(data_dir)
        self.extra_args = list(extra_args)
        self.proc: subprocess.Popen | None = None
        self.runtime: dict[str, Any] = {}
        # stderr: the server's log; stdout: what `herald serve` prints for its operator (the banner,
        # which shows a demo token and a curl line on purpose). `name` tells apart the logs of nodes
        # sharing a data directory.
        name = name or self.data_dir.name
        self.log_path = self.data_dir.parent / f"{name}-server.log"
        self.out_path = self.data_dir.parent / f"{name}-server.out"
        self._log = None
        self._out = None

    @property
    def runtime_path(self) -> Path:
        return self.data_dir / "runtime.json"

    def start(self, timeout: float = 30.0) -> "HeraldServer":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.runtime_path.unlink()  # stale after a kill -9
        except FileNotFoundError:
            pass
        self._log = open(self.log_path, "ab")
        self._out = open(self.out_path, "ab")
        for f in (self._log, self._out):
            f.write(f"\n==== start {time.strftime('%H:%M:%S')} {self.extra_args}\n".encode())
            f.flush()
        cmd = [self.binary, "serve", "--data", str(self.data_dir), "--host", "127.0.0.1",
               "--api-port", "0", "--apns-port", "0", "--apns-tls-port", "0", *self.extra_args]
        if "--database" not in self.extra_args:
            cmd += database_args(self.data_dir)
        self.proc = subprocess.Popen(cmd, stdout=self._out, stderr=self._log,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SetupError(
                    f"`{' '.join(cmd)}` exited with {self.proc.returncode} before writing runtime.json:\n"
                    + self.log_tail())
            try:
                runtime = json.loads(self.runtime_path.read_text())
            except (FileNotFoundError, ValueError):
                time.sleep(0.02)
                continue
            missing = {"api_url", "apns_url", "apns_tls_url", "pid"} - runtime.keys()
            if missing:
                raise SetupError(f"runtime.json lacks {sorted(missing)}: {runtime}")
            if runtime["pid"] != self.proc.pid:
                raise SetupError(f"runtime.json pid {runtime['pid']} is not the server's pid {self.proc.pid}")
            self.runtime = runtime
            return self
        self.proc.kill()
        raise SetupError(f"no runtime.json after {timeout}s:\n" + self.log_tail())

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM; returns the exit status. Kills (and raises) if it does not exit in time."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"herald did not exit within {timeout}s of SIGTERM:\n" + self.log_tail())
        self._close_log()
        return self.proc.returncode

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._close_log()

    def _close_log(self):
        for name in ("_log", "_out"):
            f = getattr(self, name)
            if f:
                f.close()
                setattr(self, name, None)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"

    def demo(self) -> dict[str, Any]:
        cmd = [self.binary, "demo", "--data", str(self.data_dir), "--json"]
        out = subprocess.run(cmd, capture_output=True, timeout=60)
        if out.returncode != 0:
            raise SetupError(f"`{' '.join(cmd)}` failed ({out.returncode}): {out.stderr.decode(errors='replace')}")
        try:
            demo = json.loads(out.stdout)
        except ValueError:
            raise SetupError(f"`herald demo --json` printed no JSON: {out.stdout[:500]!r}")
        expected = {"team_id", "key_id", "key_path", "topic", "device_token", "device_id", "user_token",
                    "admin_token", "api_url", "apns_url", "apns_tls_url", "ca_path"}
        if demo.keys() != expected:
            raise SetupError(f"`herald demo --json` must print exactly {sorted(expected)}; missing "
                             f"{sorted(expected - demo.keys())}, extra {sorted(demo.keys() - expected)}")
        return demo


# ---------------------------------------------------------------------------------------------
# APNs provider tokens (ES256 JWT)
# ---------------------------------------------------------------------------------------------

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt_signing_input(key_id: str, team_id: str, iat: Any, header_extra: dict | None = None,
                      claims_extra: dict | None = None) -> str:
    header = {"alg": "ES256", "kid": key_id, **(header_extra or {})}
    claims = {"iss": team_id, "iat": iat, **(claims_extra or {})}
    return (b64url(json.dumps(header, separators=(",", ":")).encode()) + "."
            + b64url(json.dumps(claims, separators=(",", ":")).encode()))


def make_jwt(key_pem: str, key_id: str, team_id: str, *, iat: Any = None, der: bool = False,
             header_extra: dict | None = None, claims_extra: dict | None = None) -> str:
    """An APNs provider token. Raw R||S signature (JWS) by default, DER with der=True."""
    if iat is None:
        iat = int(time.time())
    signing_input = jwt_signing_input(key_id, team_id, iat, header_extra, claims_extra)
    key = serialization.load_pem_private_key(key_pem.encode(), password=None)
    der_sig = key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
    if der:
        sig = der_sig
    else:
        r, s = decode_dss_signature(der_sig)
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return note_secret(signing_input + "." + b64url(sig))


def make_jwt_with_openssl(key_path: str, key_id: str, team_id: str, iat: int | None = None) -> str:
    """Apple's command-line recipe: `openssl dgst -sha256 -sign AuthKey.p8` over header.claims (DER)."""
    signing_input = jwt_signing_input(key_id, team_id, int(time.time()) if iat is None else iat)
    out = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key_path], input=signing_input.encode(),
                         capture_output=True, timeout=20)
    if out.returncode != 0:
        raise SetupError(f"openssl dgst failed: {out.stderr.decode(errors='replace')}")
    return note_secret(signing_input + "." + b64url(out.stdout))


def new_p256_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    note_key_lines(pem)
    return pem


@dataclass
class Provider:
    """A signing identity: team + key. `token` is one fixed JWT (safe to reuse on a connection)."""
    team_id: str
    key_id: str
    key_pem: str
    key_path: str | None = None
    token: str = ""

    def __post_init__(self):
        if not self.token:
            self.token = make_jwt(self.key_pem, self.key_id, self.team_id)
        note_secret(self.token)
        note_key_lines(self.key_pem)

    @property
    def authorization(self) -> str:
        return "bearer " + self.token

    def fresh_token(self, **kw) -> str:
        return note_secret(make_jwt(self.key_pem, self.key_id, self.team_id, **kw))


def random_team_id() -> str:
    return "".join(random.choice(string.ascii_uppercase + string.digits) for _ in range(10))


def random_hex_token(nbytes: int = 32) -> str:
    return os.urandom(nbytes).hex()


def new_apns_id() -> str:
    return str(uuid.uuid4())


def alert_payload(title: str = "Hello", body: str = "World", **aps) -> dict:
    return {"aps": {"alert": {"title": title, "body": body}, **aps}}


def payload_of_size(size: int, push_type: str = "alert", separators=(",", ":")) -> bytes:
    """A valid JSON payload of exactly `size` bytes (as serialized with `separators`)."""
    base = {"aps": {"alert": {"title": "size", "body": ""}}} if push_type == "alert" else {"aps": {}, "x": ""}
    raw = json.dumps(base, separators=separators).encode()
    pad = size - len(raw)
    assert pad >= 0
    if push_type == "alert":
        base["aps"]["alert"]["body"] = "b" * pad
    else:
        base["x"] = "b" * pad
    raw = json.dumps(base, separators=separators).encode()
    assert len(raw) == size
    return raw


def apns_headers(provider: Provider | None, topic: str | None, *, push_type: str | None = "alert",
                 apns_id: str | None = None, priority: int | str | None = None,
                 expiration: int | str | None = None, collapse_id: str | None = None,
                 authorization: str | None = None, extra: Iterable[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    headers: list[tuple[str, str]] = []
    if authorization is not None:
        headers.append(("authorization", authorization))
    elif provider is not None:
        headers.append(("authorization", provider.authorization))
    if topic is not None:
        headers.append(("apns-topic", topic))
    if push_type is not None:
        headers.append(("apns-push-type", push_type))
    if apns_id is not None:
        headers.append(("apns-id", apns_id))
    if priority is not None:
        headers.append(("apns-priority", str(priority)))
    if expiration is not None:
        headers.append(("apns-expiration", str(expiration)))
    if collapse_id is not None:
        headers.append(("apns-collapse-id", collapse_id))
    headers.extend(extra)
    return headers


def as_body(payload: dict | bytes | str | None) -> bytes | None:
    if payload is None:
        return None
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode()
    return json.dumps(payload, separators=(",", ":")).encode()


# ---------------------------------------------------------------------------------------------
# HTTP results
# ---------------------------------------------------------------------------------------------

@dataclass
class HTTPResult:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    version: str = ""

    def header(self, name: str) -> str | None:
        for k, v in self.headers:
            if k == name.lower():
                return v
        return None

    def header_all(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k == name.lower()]

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            raise AssertionError(f"HTTP {self.status}: body is not JSON: {self.body[:300]!r}")

    @property
    def reason(self) -> str | None:
        if not self.body:
            return None
        try:
            return json.loads(self.body).get("reason")
        except (ValueError, AttributeError):
            return None

    def __repr__(self):
        return f"<HTTP {self.status} {self.body[:200]!r} {self.headers}>"


# ---------------------------------------------------------------------------------------------
# curl
# ---------------------------------------------------------------------------------------------

TRANSPORTS = ("h2c", "tls", "http1")


def curl(transport: str, urls: dict[str, str], path: str, headers: list[tuple[str, str]],
         body: bytes | None, *, method: str | None = None, ca_path: str | None = None,
         extra_args: Iterable[str] = (), timeout: float = 20) -> HTTPResult:
    """One request with the curl CLI. transport: h2c (prior knowledge), tls (ALPN h2), http1 (cleartext),
    tls-http1 (TLS, ALPN http/1.1)."""
    if transport == "h2c":
        args, base = ["--http2-prior-knowledge"], urls["apns_url"]
    elif transport == "tls":
        args, base = ["--http2", "--cacert", ca_path], urls["apns_tls_url"]
    elif transport == "http1":
        args, base = ["--http1.1"], urls["apns_url"]
    elif transport == "tls-http1":
        args, base = ["--http1.1", "--cacert", ca_path], urls["apns_tls_url"]
    else:
        raise ValueError(transport)
    with tempfile.TemporaryDirectory() as tmp:
        hdr_file, out_file, in_file = (os.path.join(tmp, n) for n in ("h", "o", "i"))
        cmd = ["curl", "-sS", "--noproxy", "*", "--max-time", str(timeout), *args,
               "-D", hdr_file, "-o", out_file, "-w", "%{http_code} %{http_version}"]
        for k, v in headers:
            cmd += ["-H", f"{k}: {v}"]
        if body is not None:
            with open(in_file, "wb") as f:
                f.write(body)
            cmd += ["--data-binary", "@" + in_file]
        if method:
            cmd += ["-X", method]
        cmd += [*extra_args, base.rstrip("/") + path]
        out = subprocess.run(cmd, capture_output=True, timeout=timeout + 5)
        if out.returncode != 0:
            raise AssertionError(f"curl failed ({out.returncode}): {out.stderr.decode(errors='replace')}\n{cmd}")
        code, version = out.stdout.decode().split()
        raw_headers = Path(hdr_file).read_bytes().decode("latin-1")
        body_out = Path(out_file).read_bytes() if os.path.exists(out_file) else b""
    # The dump may hold several blocks (100 Continue); the last one is the response.
    blocks = [b for b in raw_headers.replace("\r\n", "\n").split("\n\n") if b.strip()]
    lines = blocks[-1].split("\n")
    parsed = []
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            parsed.append((k.strip().lower(), v.strip()))
    return HTTPResult(int(code), parsed, body_out, version)


def curl_burst(transport: str, urls: dict[str, str], path: str, headers: list[tuple[str, str]], body: bytes,
               n: int, *, ca_path: str | None = None, timeout: float = 30) -> list[HTTPResult]:
    """n identical POSTs from ONE curl process (one connection, back to back): for rate limits."""
    flags = {"h2c": (["--http2-prior-knowledge"], "apns_url"), "tls": (["--http2", "--cacert", ca_path], "apns_tls_url"),
             "http1": (["--http1.1"], "apns_url"), "tls-http1": (["--http1.1", "--cacert", ca_path], "apns_tls_url")}
    args, key = flags[transport]
    url = urls[key].rstrip("/") + path
    with tempfile.TemporaryDirectory() as tmp:
        in_file = os.path.join(tmp, "in")
        Path(in_file).write_bytes(body)
        cmd = ["curl", "-sS", "--noproxy", "*", "--max-time", str(timeout), *args, "-w", "%{http_code}\n"]
        for k, v in headers:
            cmd += ["-H", f"{k}: {v}"]
        cmd += ["--data-binary", "@" + in_file]
        for i in range(n):
            cmd += ["-o", os.path.join(tmp, f"out{i}"), url]
        out = subprocess.run(cmd, capture_output=True, timeout=timeout + 5)
        if out.returncode != 0:
            raise AssertionError(f"curl failed ({out.returncode}): {out.stderr.decode(errors='replace')}")
        codes = out.stdout.decode().split()
        return [HTTPResult(int(c), [], Path(tmp, f"out{i}").read_bytes() if Path(tmp, f"out{i}").exists() else b"")
                for i, c in enumerate(codes)]


# ---------------------------------------------------------------------------------------------
# Raw HTTP/2 (h2 library) — frame-level view of responses
# ---------------------------------------------------------------------------------------------

class ConnectionClosed(Exception):
    pass


@dataclass
class H2Stream:
    stream_id: int
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    frames: list[tuple[str, int, bool]] = field(default_factory=list)  # (type, data length, END_STREAM)
    data: bytes = b""
    ended: bool = False
    reset: int | None = None

    @property
    def status(self) -> int:
        return int(self.header(":status") or 0)

    def header(self, name: str) -> str | None:
        for k, v in self.headers:
            if k.decode() == name:
                return v.decode()
        return None

    @property
    def reason(self) -> str | None:
        return json.loads(self.data).get("reason") if self.data else None

    def __repr__(self):
        return f"<stream {self.stream_id} {self.status} frames={self.frames} {self.data[:200]!r}>"


class H2Client:
    """A blocking HTTP/2 client on one connection (h2c, or TLS with a chosen ALPN offer)."""

    def __init__(self, url: str, *, cafile: str | None = None, alpn: list[str] | None = None,
                 timeout: float = 15.0, authority_header: bool = True):
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port
        self.tls = parts.scheme == "https"
        self.timeout = timeout
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.alpn_selected = None
        if self.tls:
            ctx = ssl.create_default_context(cafile=cafile)
            if alpn:
                ctx.set_alpn_protocols(alpn)
            sock = ctx.wrap_socket(sock, server_hostname=self.host)
            self.alpn_selected = sock.selected_alpn_protocol()
        self.sock = sock
        self.authority_header = authority_header
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
        self.conn.initiate_connection()
        self.streams: dict[int, H2Stream] = {}
        self.remote_settings: dict[int, int] = {}
        self.settings_received = False
        self.ping_acks: list[bytes] = []
        self.goaway: h2.events.ConnectionTerminated | None = None
        self.closed = False
        self._inbuf = b""
        self._header_block = b""
        self._header_end_stream = False
        self._flush()
        self.pump_until(lambda: self.settings_received)

    # -- I/O
    def _flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def _read_once(self, timeout: float):
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError) as e:
            self.closed = True
            raise ConnectionClosed(str(e))
        if not data:
            self.closed = True
            raise ConnectionClosed("EOF")
        # Split into whole frames: the h2 library refuses every frame after a GOAWAY, but a server
        # that shuts down gracefully still answers the streams up to GOAWAY's last_stream_id.
        self._inbuf += data
        while len(self._inbuf) >= 9:
            size = 9 + int.from_bytes(self._inbuf[:3], "big")
            if len(self._inbuf) < size:
                break
            frame, self._inbuf = self._inbuf[:size], self._inbuf[size:]
            if self.goaway is None:
                for ev in self.conn.receive_data(frame):
                    self._handle(ev)
            else:
                self._frame_after_goaway(frame)
        if self.goaway is None:
            self._flush()

    def _frame_after_goaway(self, raw: bytes):
        from hyperframe.frame import ContinuationFrame, DataFrame, Frame, HeadersFrame, RstStreamFrame
        frame, length = Frame.parse_frame_header(memoryview(raw[:9]))
        frame.parse_body(memoryview(raw[9:9 + length]))
        st = self.streams.get(frame.stream_id)
        if isinstance(frame, (HeadersFrame, ContinuationFrame)):
            self._header_block += frame.data
            if isinstance(frame, HeadersFrame):
                self._header_end_stream = "END_STREAM" in frame.flags
            if "END_HEADERS" in frame.flags:
                headers = self.conn.decoder.decode(self._header_block, raw=True)
                self._header_block = b""
                if st is not None:
                    st.headers = list(headers)
                    st.frames.append(("HEADERS", 0, self._header_end_stream))
                    st.ended = st.ended or self._header_end_stream
        elif isinstance(frame, DataFrame) and st is not None:
            st.data += frame.data
            end = "END_STREAM" in frame.flags
            st.frames.append(("DATA", len(frame.data), end))
            st.ended = st.ended or end
        elif isinstance(frame, RstStreamFrame) and st is not None:
            st.reset, st.ended = frame.error_code, True

    def _handle(self, ev):
        if isinstance(ev, h2.events.ResponseReceived):
            st = self.streams[ev.stream_id]
            st.headers = list(ev.headers)
            st.frames.append(("HEADERS", 0, ev.stream_ended is not None))
        elif isinstance(ev, h2.events.TrailersReceived):
            self.streams[ev.stream_id].frames.append(("TRAILERS", 0, ev.stream_ended is not None))
        elif isinstance(ev, h2.events.DataReceived):
            st = self.streams[ev.stream_id]
            st.data += ev.data
            st.frames.append(("DATA", len(ev.data), ev.stream_ended is not None))
            if ev.flow_controlled_length:
                self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        elif isinstance(ev, h2.events.StreamEnded):
            self.streams[ev.stream_id].ended = True
        elif isinstance(ev, h2.events.StreamReset):
            if ev.stream_id in self.streams:
                self.streams[ev.stream_id].reset = ev.error_code
                self.streams[ev.stream_id].ended = True
        elif isinstance(ev, h2.events.RemoteSettingsChanged):
            self.settings_received = True
            for code, change in ev.changed_settings.items():
                self.remote_settings[int(code)] = change.new_value
        elif isinstance(ev, h2.events.PingAckReceived):
            self.ping_acks.append(ev.ping_data)
        elif isinstance(ev, h2.events.ConnectionTerminated):
            self.goaway = ev

    def pump_until(self, done: Callable[[], bool], timeout: float | None = None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("HTTP/2 response not complete in time")
            try:
                self._read_once(left)
            except socket.timeout:
                raise TimeoutError("HTTP/2 response not complete in time")

    # -- requests
    def start_request(self, path: str, headers: list[tuple[str, str]], body: bytes | None,
                      method: str = "POST") -> int:
        sid = self.conn.get_next_available_stream_id()
        pseudo = [(":method", method), (":scheme", "https" if self.tls else "http"), (":path", path)]
        if self.authority_header:
            pseudo.append((":authority", f"{self.host}:{self.port}"))
        else:
            pseudo.append(("host", f"{self.host}"))
        self.streams[sid] = H2Stream(sid)
        self.conn.send_headers(sid, pseudo + list(headers), end_stream=not body)
        if body:
            self._send_body(sid, body)
        self._flush()
        return sid

    def _send_body(self, sid: int, body: bytes):
        offset = 0
        while offset < len(body):
            window = min(self.conn.local_flow_control_window(sid), self.conn.max_outbound_frame_size)
            if window <= 0:
                self._flush()
                self._read_once(self.timeout)
                continue
            chunk = body[offset:offset + window]
            offset += len(chunk)
            self.conn.send_data(sid, chunk, end_stream=offset >= len(body))

    def wait(self, sids: Iterable[int], timeout: float | None = None) -> list[H2Stream]:
        sids = list(sids)
        self.pump_until(lambda: all(self.streams[s].ended for s in sids), timeout)
        return [self.streams.pop(s) for s in sids]

    def request(self, path: str, headers: list[tuple[str, str]], body: bytes | None, method: str = "POST",
                timeout: float | None = None) -> H2Stream:
        return self.wait([self.start_request(path, headers, body, method)], timeout)[0]

    def push(self, device_token: str, headers: list[tuple[str, str]], payload) -> H2Stream:
        return self.request(f"/3/device/{device_token}", headers, as_body(payload))

    def push_many(self, items: list[tuple[str, list[tuple[str, str]], Any]], window: int = 100,
                  timeout: float = 60) -> list[H2Stream]:
        """Pipelines pushes (device_token, headers, payload), at most `window` in flight."""
        results: dict[int, H2Stream] = {}
        order: list[int] = []
        pending: list[int] = []
        deadline = time.monotonic() + timeout
        for token, headers, payload in items:
            while len(pending) >= window:
                self.pump_until(lambda: any(self.streams[s].ended for s in pending), deadline - time.monotonic())
                for s in [s for s in pending if self.streams[s].ended]:
                    pending.remove(s)
                    results[s] = self.streams.pop(s)
            sid = self.start_request(f"/3/device/{token}", headers, as_body(payload))
            order.append(sid)
            pending.append(sid)
        for st in self.wait(pending, max(0.1, deadline - time.monotonic())):
            results[st.stream_id] = st
        return [results[s] for s in order]

    def ping(self, data: bytes = b"herald!!", timeout: float | None = None) -> bytes:
        self.conn.ping(data)
        self._flush()
        n = len(self.ping_acks)
        self.pump_until(lambda: len(self.ping_acks) > n, timeout)
        return self.ping_acks[-1]

    def wait_for_goaway(self, timeout: float) -> h2.events.ConnectionTerminated | None:
        deadline = time.monotonic() + timeout
        try:
            while self.goaway is None and time.monotonic() < deadline:
                try:
                    self._read_once(max(0.05, deadline - time.monotonic()))
                except socket.timeout:
                    pass
        except ConnectionClosed:
            pass
        return self.goaway

    def close(self):
        try:
            if not self.closed:
                self.conn.close_connection()
                self._flush()
        except Exception:
            pass
        try:
            self.sock.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------------------------------------
# JSON API
# ---------------------------------------------------------------------------------------------

def http_request(base_url: str, method: str, path: str, *, body: Any = None, token: str | None = None,
                 headers: dict[str, str] | None = None, timeout: float = 15) -> HTTPResult:
    parts = urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    hdrs = dict(headers or {})
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    if token is not None:
        hdrs["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        payload = resp.read()
        return HTTPResult(resp.status, [(k.lower(), v) for k, v in resp.getheaders()], payload,
                          f"1.{resp.version % 10}")
    finally:
        conn.close()


def query(path: str, **params) -> str:
    params = {k: v for k, v in params.items() if v is not None}
    return path + ("?" + urlencode(params) if params else "")


# ---------------------------------------------------------------------------------------------
# Live streams
# ---------------------------------------------------------------------------------------------

@dataclass
class SSEEvent:
    id: str | None
    event: str
    data: str

    def json(self) -> Any:
        return json.loads(self.data)

    @property
    def notification_id(self) -> str | None:
        return notification_id_of(self.json())


def notification_id_of(obj: Any) -> str | None:
    if isinstance(obj, dict):
        if isinstance(obj.get("notification"), dict):
            return obj["notification"].get("id")
        return obj.get("id")
    return None


class SSEClient:
    """GET /v1/devices/{id}/stream as text/event-stream, parsed on a background thread."""

    def __init__(self, api_url: str, device_id: str, token: str | None, *, last_event_id: str | None = None,
                 cursor: str | None = None, token_in_query: bool = False, timeout: float = 10,
                 _sock: socket.socket | None = None):
        self.events: "queue.Queue[SSEEvent | None]" = queue.Queue()
        # Set by the server's `: connected` comment, written once the session is subscribed.
        self.connected = threading.Event()
        self.error_body = b""
        self._closed = False
        if _sock is not None:  # an already-sent request on a raw socket
            self.conn = None
            self.sock = _sock
            _sock.settimeout(timeout)
            self.resp = http.client.HTTPResponse(_sock, method="GET")
            self.resp.begin()
        else:
            parts = urlsplit(api_url)
            self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
            params = {}
            if cursor is not None:
                params["cursor"] = cursor
            headers = {"Accept": "text/event-stream"}
            if token is not None:
                if token_in_query:
                    params["access_token"] = token
                else:
                    headers["Authorization"] = f"Bearer {token}"
            if last_event_id is not None:
                headers["Last-Event-ID"] = last_event_id
            self.conn.request("GET", query(f"/v1/devices/{device_id}/stream", **params), headers=headers)
            self.resp = self.conn.getresponse()
            self.sock = self.conn.sock
        self.status = self.resp.status
        self.content_type = self.resp.getheader("Content-Type", "")
        if self.status != 200:
            self.error_body = self.resp.read()
            self.close()
            return
        self.sock.settimeout(None)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    @classmethod
    def from_socket(cls, sock: socket.socket, timeout: float = 10) -> "SSEClient":
        """Start reading an SSE response on a socket whose request was already sent."""
        return cls("", "", None, timeout=timeout, _sock=sock)

    def _run(self):
        ev_id, ev_type, data = None, None, []
        try:
            while True:
                raw = self.resp.readline()
                if not raw:
                    break
                line = raw.decode().rstrip("\r\n")
                if line == "":
                    if data or ev_type:
                        self.events.put(SSEEvent(ev_id, ev_type or "message", "\n".join(data)))
                    ev_id, ev_type, data = None, None, []
                    continue
                if line.startswith(":"):
                    if line == ": connected":
                        self.connected.set()
                    continue
                name, _, value = line.partition(":")
                if value.startswith(" "):
                    value = value[1:]
                if name == "id":
                    ev_id = value
                elif name == "event":
                    ev_type = value
                elif name == "data":
                    data.append(value)
        except Exception:
            pass
        finally:
            self.events.put(None)

    def wait_connected(self, timeout: float = 5) -> "SSEClient":
        """Waits for the server's `: connected` line: from then on every new change reaches the session."""
        assert self.connected.wait(timeout), f"no `: connected` line within {timeout}s"
        return self

    def next(self, timeout: float = 5) -> SSEEvent:
        try:
            ev = self.events.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no SSE event within {timeout}s")
        if ev is None:
            self.events.put(None)
            raise ConnectionClosed("SSE stream ended")
        return ev

    def collect(self, n: int, timeout: float = 10, kinds: tuple[str, ...] = ("notification", "removed")) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        deadline = time.monotonic() + timeout
        while len(out) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"got {len(out)} of {n} SSE events in {timeout}s")
            ev = self.next(left)
            if ev.event in kinds:
                out.append(ev)
        return out

    def drain(self, quiet: float = 0.5) -> list[SSEEvent]:
        """Events that arrive until the stream is quiet for `quiet` seconds."""
        out = []
        while True:
            try:
                out.append(self.next(quiet))
            except (TimeoutError, ConnectionClosed):
                return out

    def close(self):
        if self._closed:
            return
        self._closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except Exception:
            pass
        try:
            self.resp.close()
            self.sock.close()
            if self.conn:
                self.conn.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def stalled_sse_socket(api_url: str, device_id: str, token: str, rcvbuf: int = 4096) -> socket.socket:
    """An SSE session whose client never reads (tiny receive buffer)."""
    parts = urlsplit(api_url)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect((parts.hostname, parts.port))
    s.sendall((f"GET /v1/devices/{device_id}/stream HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
               f"Accept: text/event-stream\r\nAuthorization: Bearer {token}\r\n\r\n").encode())
    return s


def iso_ms_utc(value: str) -> bool:
    import re
    return bool(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|\+00:00)", value))


def wait_until(cond: Callable[[], Any], timeout: float, interval: float = 0.05, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not met within {timeout}s")
        time.sleep(interval)


def push_ok(env, h2: H2Client, device, payload) -> str:
    """Pushes `payload` to the device on `h2`; asserts the 200 and returns the apns-id."""
    apns_id = new_apns_id()
    st = h2.push(device.device_token, env.headers(apns_id=apns_id), payload)
    assert st.status == 200, st
    return apns_id


def listed_one(env, device, apns_id: str) -> dict:
    """The device's listed notification with this id (exactly one)."""
    [n] = [n for n in env.all_notifications(device) if n["id"] == apns_id]
    return n
