"""The attacks real HTTP/2 servers have fallen to, each for a few seconds against the APNs listener
while a well-behaved provider pushes on its own connection: the attacking connection is closed or
bounded, the server's memory stays bounded, and every bystander push is answered 200 and listed.

scripts/abuse-report runs the same attacks (tests/interop/h2_attacks.py) for longer against a release
build and prints the figures (docs/reliability.md, "Attacks on the listeners"). Cost here: ~25 s."""

from __future__ import annotations

import resource
import time

import pytest

from h2_attacks import (
    Bystander, RssSampler, continuation_flood, huge_header_list, idle_connections, never_reads, rapid_reset,
    slow_reader,
)
from herald_support import REPORT

SECONDS = 3
# What the server may grow by during one attack (it starts around 30-60 MiB; the CONTINUATION flood
# grew it by 600 MiB in 5 s before connections were closed on errors).
MAX_GROWTH_MIB = 64
# The bystander's worst latency allowed (p99), generous: a debug build on 2 shared cores.
MAX_P99_MS = 2000


def run_attack(env, device, attack, **kw):
    rss = RssSampler(env.server.proc.pid)
    rss.start()
    bystander = Bystander(env, env.new_device())
    bystander.start()
    time.sleep(0.2)
    try:
        outcome = attack(env, device, SECONDS, **kw)
    finally:
        bystander.stop()
        rss.stop()
    grown = (rss.peak_kib - rss.start_kib) / 1024
    REPORT.append(f"{attack.__name__}: {outcome.summary}; server RSS peak {grown:+.1f} MiB; bystander "
                  f"{len(bystander.latencies)} pushes, p99 {bystander.p99_ms():.0f} ms")
    assert not bystander.failures, bystander.failures[:3]
    assert len(bystander.latencies) >= 5, f"the bystander got only {len(bystander.latencies)} pushes answered"
    assert bystander.p99_ms() < MAX_P99_MS, f"bystander p99 {bystander.p99_ms():.0f} ms"
    assert bystander.last_id in env.listed_ids(bystander.device)
    assert grown < MAX_GROWTH_MIB, f"server memory grew by {grown:.0f} MiB"
    return outcome


@pytest.mark.parametrize("mode", ["h2c", "tls-alpn-h2"])
def test_rapid_reset_is_cut_off(herald, device, mode):
    outcome = run_attack(herald, device, rapid_reset, mode=mode)
    assert outcome.closed, outcome.summary


# TLS: hundreds of new connections flooding in turn. Each is closed after its GOAWAY; closing TLS waits
# for the peer's close_notify (250 ms at most, `tls.shutdownTimeout`): at NIOSSL's default of 5 s the
# closing connections piled up (1,300 at once, server RSS +300 MiB).
@pytest.mark.parametrize("mode", ["h2c", "tls-alpn-h2"])
def test_continuation_flood_is_cut_off(herald, device, mode):
    outcome = run_attack(herald, device, continuation_flood, mode=mode)
    assert outcome.closed, outcome.summary


def test_a_header_list_far_over_the_limit_is_refused(herald, device):
    outcome = run_attack(herald, device, huge_header_list)
    assert outcome.closed, outcome.summary


def test_a_slow_reader_that_never_opens_its_window_is_bounded(herald, device):
    """Answers wait for a window that never opens; at most SETTINGS_MAX_CONCURRENT_STREAMS of them."""
    outcome = run_attack(herald, device, slow_reader)
    assert outcome.closed, outcome.summary
    assert outcome.figures["answers"] <= 1000 + 100, outcome.figures


def test_a_client_that_never_reads_is_bounded(herald, device):
    """The server stops taking requests whose answers can't be delivered (or closes the connection)."""
    outcome = run_attack(herald, device, never_reads)
    assert outcome.closed, outcome.summary
    assert outcome.figures["bytes"] < 64 << 20, outcome.figures


def test_idle_connections_are_held_cheaply_up_to_the_limit_then_refused(herald_factory, device):
    """Connections count against half the process's open-files limit (here lowered to 256 for the server:
    at most 128 connections); past it a new connection is closed at once, so idle connections can't take
    the descriptors the rest of the server needs. A provider connected before keeps being served."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    try:
        env = herald_factory("fd-limit")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    victim = env.new_device()
    outcome = run_attack(env, victim, idle_connections, count=300)
    # 128 connections at most, one of them the bystander's.
    assert outcome.figures["held"] <= 127, outcome.figures
    assert outcome.figures["held"] >= 100, outcome.figures
    assert outcome.figures["closed"] + outcome.figures["refused"] >= 300 - 127, outcome.figures
    # Once the idle connections are gone, new ones are taken again.
    bystander = Bystander(env, victim)
    bystander.start()
    time.sleep(0.5)
    bystander.stop()
    assert not bystander.failures and bystander.latencies, bystander.failures


def test_a_thousand_idle_connections_cost_little_memory(herald, device):
    """1,000 connections that said nothing or only the preface: well under 64 MiB (≈15 KiB each)."""
    outcome = run_attack(herald, device, idle_connections, count=1000)
    assert outcome.figures["held"] == 1000, outcome.figures
