"""scripts/bench's verdicts on the issue's targets: the profile section (what each CPU target leaves once the HTTP/2
layer, durable storage and Herald's logic are paid), the 0.4× budget from the floor and nginx pairs, and the p99
against the bursts h2load sends and the durable floor."""

from __future__ import annotations

from test_bench_tools import _res, tools


def profile(writer_sqlite, writer_commit, writer_rest, checkpoint, http2, rest, server_us=50.0):
    """A PROFILE_JSON whose samples split as given (µs a push at `server_us`, one sample per 0.1 µs)."""
    n = lambda us: round(us * 10)  # noqa: E731
    stages = [
        {"name": "commit: WAL write + fsync (kernel)", "samples": n(writer_commit + checkpoint), "writer": n(writer_commit), "checkpoint": n(checkpoint)},
        {"name": "SQLite (B-trees, records, WAL frames)", "samples": n(writer_sqlite), "writer": n(writer_sqlite), "checkpoint": 0},
        {"name": "writer (queue, batch, commit callback)", "samples": n(writer_rest), "writer": n(writer_rest), "checkpoint": 0},
        {"name": "HTTP/2 framing (NIOHTTP2, the connection handler)", "samples": n(http2), "writer": 0, "checkpoint": 0},
        {"name": "decide (delivery policy)", "samples": n(rest), "writer": 0, "checkpoint": 0},
        {"name": "HPACK (NIOHPACK)", "samples": 0, "writer": 0, "checkpoint": 0},
    ]
    total = sum(s["samples"] for s in stages)
    assert abs(total / 10 - server_us) < 0.05
    return {"pushes": 100000, "rate": 28000.0, "server_us": server_us, "writer_us": writer_sqlite + writer_commit + writer_rest,
            "wal_bytes_per_push": 1700.0, "pushes_per_commit": 110.0,
            "stages": {"total": total, "writer_total": n(writer_sqlite + writer_commit + writer_rest),
                       "checkpoint_total": n(checkpoint), "us_per_push": server_us, "stages": stages}}


def test_the_profile_section_gives_each_stage_in_microseconds_and_what_the_targets_leave():
    from bench_profile import profile_section
    text = "\n".join(profile_section(profile(4.0, 2.0, 5.0, 1.0, 10.0, 28.0), 13.5, 22.0, 7.0, "N=100000 scripts/profile-push perf"))
    assert "## Where a push's CPU goes (perf)" in text
    assert "| SQLite (B-trees, records, WAL frames) | 8.0 % | 4.0 | 4.0 | 0.0 |" in text
    assert "| commit: WAL write + fsync (kernel) | 6.0 % | 3.0 | 2.0 | 1.0 |" in text
    assert "HPACK" not in text.split("What each CPU target")[0].split("| stage |")[1]  # rows with no samples are left out
    assert "| **all** (500 samples) | 100 % | 50.0 | 11.0 | 1.0 |" in text
    # 13.5 µs of HTTP/2 + 7.0 µs of durable storage (6.0 on the writer, 1.0 checkpointing) leave 1.5 µs of the 22.
    assert "Storing the push durably costs 7.0 µs" in text
    assert "That leaves 1.5 µs for everything else a push does" in text
    assert "which takes 33.0 µs here" in text
    # The writer: 6.0 µs of SQLite and the kernel leave 1.0 µs of the 7 to Herald's 5.0.
    assert "SQLite and the kernel leave 1.0 µs of the target to Herald's 5.0 µs." in text
    assert "≥ 0.4× nginx" not in text  # no floor share given: no ratio sentence
    # The floor at 0.8× nginx and 13.5 µs: 0.4× allows 27.0 µs a push; 20.5 of it are paid, 6.5 left.
    text = "\n".join(profile_section(profile(4.0, 2.0, 5.0, 1.0, 10.0, 28.0), 13.5, 22.0, 7.0, "x", floor_share=0.8))
    assert "so at the same CPU 0.4× nginx allows a push 27.0 µs" in text
    assert "take 20.5 µs of it. That leaves 6.5 µs for everything else a push does (the token," in text
    text = "\n".join(profile_section(profile(4.0, 2.0, 5.0, 1.0, 10.0, 28.0), 13.5, 22.0, 7.0, "x", floor_share=0.5))
    assert "allows a push 16.9 µs" in text and "Together 20.5 µs: over what it allows" in text
    assert "It cannot be met with NIOHTTP2 and a durable SQLite store" in text


def test_the_profile_section_adds_herald_s_logic_measured_alone_to_what_a_push_cannot_drop():
    from bench_profile import profile_section
    logic = {"us_per_push": 8.5, "min_us_per_push": 8.0, "rounds": [8.5, 8.0, 9.0], "pushes_per_round": 20000}
    # 13.5 µs of HTTP/2 + 7.0 of storage + 8.0 of logic = 28.5: over 0.8× → 27.0 µs allowed and over 22.
    text = "\n".join(profile_section(profile(4.0, 2.0, 5.0, 1.0, 10.0, 28.0), 13.5, 22.0, 7.0, "x", floor_share=0.8,
                                      logic=logic, logic_command="herald-push-logic-bench"))
    assert "**Herald's logic alone.** `herald-push-logic-bench`" in text
    assert "8.0 µs a push in the fastest of 3 rounds of 20,000 (their median 8.5)" in text  # the fastest counts
    assert "With Herald's logic measured alone (8.0 µs), 28.5 µs: over the target" in text
    assert "With Herald's logic measured alone (8.0 µs), 28.5 µs: over what it allows" in text
    assert "(25.0 µs more here)" in text  # 33.0 µs of the rest, 8.0 of it the logic
    assert text.count("It cannot be met with NIOHTTP2, a durable SQLite store and this logic") == 2
    # Over TLS: the floor at 15.0 µs and 0.9× nginx's TLS rate, so 0.4× allows 33.8 µs; 15.0 + 7.0 + 8.0 = 30.0.
    tls = "\n".join(profile_section(profile(4.0, 2.0, 5.0, 1.0, 10.0, 28.0), 13.5, 22.0, 7.0, "x", floor_share=0.8,
                                     logic=logic, floor_tls=(15.0, 0.9)))
    assert "**≥ 0.4× nginx over TLS.** The floor over TLS reaches 0.90× nginx's TLS rate at 15.0 µs a request, so " \
        "0.4× nginx over TLS allows a push 33.8 µs. The HTTP/2 layer over TLS and durable storage take 22.0 µs of it." in tls
    assert "That leaves 11.8 µs for everything else a push does, which takes 33.0 µs here; of it, Herald's logic " \
        "alone takes 8.0 µs, so 3.8 µs would be left" in tls
    assert "over TLS" not in text  # no TLS floor given: no TLS sentence
    # At 0.9× the floor's share, 0.4× allows 30.4 µs: 28.5 are paid, 1.9 left for the hand-offs.
    text = "\n".join(profile_section(profile(4.0, 2.0, 5.0, 1.0, 10.0, 28.0), 13.5, 22.0, 7.0, "x", floor_share=0.9,
                                      logic=logic))
    assert "allows a push 30.4 µs" in text
    assert "That leaves 9.9 µs for everything else a push does, which takes 33.0 µs here; of it, Herald's logic " \
        "alone takes 8.0 µs, so 1.9 µs would be left for the hand-offs between threads" in text


def test_the_profile_section_says_cannot_when_the_parts_that_stay_exceed_a_target():
    from bench_profile import profile_section
    text = "\n".join(profile_section(profile(5.0, 3.0, 4.0, 2.0, 10.0, 26.0), 13.5, 22.0, 7.0, "scripts/profile-push perf"))
    assert "Together 23.5 µs: over the target" in text and "It cannot be met with NIOHTTP2" in text
    assert "SQLite and the kernel alone are over the target: it cannot be met" in text


def test_the_profile_section_says_when_it_was_not_measured():
    from bench_profile import profile_section
    assert profile_section(None, 13.5, 22.0, 7.0, "x")[-1] == "Not measured in this run (see the notes)."
    text = "\n".join(profile_section(profile(4.0, 2.0, 5.0, 1.0, 10.0, 28.0), None, 22.0, 7.0, "x"))
    assert "Server CPU ≤" not in text and "Writer thread ≤ 7 µs" in text  # no floor run: no server sentence


def test_bursts_group_requests_that_start_together():
    # Three bursts: 3 requests at 0 µs, 4 at 10 ms, 2 at 20 ms (each within 50 µs of the one before).
    starts = [0, 30, 60] + [10_000 + 40 * i for i in range(4)] + [20_000, 20_010]
    b = tools.bursts(starts)
    assert b["count"] == 3 and b["median_size"] == 3
    assert b["median_gap_ms"] == 9.94  # gaps 9.94 (60 µs → 10 ms) and 9.88 ms (10.12 → 20 ms): the upper median
    assert abs(b["per_s"] - 3 / 0.02001) < 1e-6
    assert tools.bursts([5]) is None
    import bench_report_parts
    text = "\n".join(bench_report_parts.burst_sentences({"bursts": b}, {"bursts": tools.bursts([0, 1, 2, 5_000])}))
    assert "3 bursts (150 a second;" in text and "a median 3 requests, 9.94 ms apart" in text
    assert "(nginx's run: a median 3, 5.00 ms apart)" in text
    assert bench_report_parts.burst_sentences(None, None) == []



def test_the_p99_target_is_judged_against_the_durable_floor_in_the_same_bursts():
    from bench_report_parts import latency_floor_sentences
    herald = _res(5000, p99=7.5)
    # The floor's p99 under the target: what it leaves, and how far above it Herald's is.
    text = "\n".join(latency_floor_sentences(herald, _res(5000, p99=2.25), 1700, 5000))
    assert "written 1,700 B for it" in text and "p99 2.25 ms" in text
    assert "It leaves 2.75 ms of the 5 ms p99 for Herald's own work; Herald's p99 is 7.50 ms, 5.25 ms above it" in text
    assert "cannot" not in text
    # Over the target: no server that syncs before its 200 meets it here.
    text = "\n".join(latency_floor_sentences(herald, _res(5000, p99=5.5), 1700, 5000))
    assert "p99 5.50 ms" in text and "it cannot be met by a server that syncs a push before its 200" in text
    assert latency_floor_sentences(herald, None, 1700, 5000) == []


def test_the_ratio_budget_is_taken_from_the_median_of_the_floor_and_nginx_pairs():
    from bench_profile import profile_section
    from bench_report_parts import median_floor_pair
    # Floor 14 µs a request (1.4 s / 100,000); nginx's rate moves: shares 0.96, 0.80, 0.70 → budgets 33.6, 28.0, 24.5.
    floor = _res(96000, ok=100000, server=140)
    pairs = [(floor, _res(100000)), (_res(96000, ok=100000, server=140), _res(120000)),
             (_res(84000, ok=100000, server=140), _res(120000))]
    us, share, budgets = median_floor_pair(pairs)
    assert [round(b, 1) for b in budgets] == [33.6, 28.0, 24.5]
    assert (round(us, 1), round(share, 2)) == (14.0, 0.8)                # the median pair, not the first
    assert median_floor_pair(pairs[:2])[1] == 0.8                        # two pairs: the lower median
    assert median_floor_pair([(None, _res(1)), (floor, None)]) is None   # no pair measured
    text = "\n".join(profile_section(profile(4.0, 2.0, 5.0, 1.0, 10.0, 28.0), us, 22.0, 7.0, "x", floor_share=share,
                                      pair_budgets=budgets))
    assert "allows a push 28.0 µs (the median of 3 pairs of max-load runs, nginx then the floor, one right after the " \
           "other: 33.6, 28.0, 24.5 µs)" in text
    one = "\n".join(profile_section(profile(4.0, 2.0, 5.0, 1.0, 10.0, 28.0), us, 22.0, 7.0, "x", floor_share=share,
                                     pair_budgets=budgets[:1]))
    assert "allows a push 28.0 µs. The HTTP/2" in one                    # one pair: nothing to say about pairs


def test_the_fixed_rate_figures_come_from_the_run_with_the_median_p99():
    from bench_report_parts import median_p99_run, repeated_rate_sentence
    runs = [_res(5000, ok=1, p99=5.4), _res(5000, ok=2, p99=4.1), _res(5000, ok=3, p99=4.7)]
    chosen, p99s = median_p99_run(runs)
    assert chosen["ok"] == 3 and p99s == [5.4, 4.1, 4.7]              # the middle p99, the rest in run order
    assert median_p99_run(runs[:2])[0]["ok"] == 1                       # two runs: the higher one
    assert median_p99_run([None, runs[1], {"latency_ms": {}}]) == (runs[1], [4.1])  # runs without a result left out
    assert median_p99_run([None]) == (None, [])
    text = "\n".join(repeated_rate_sentence(p99s, [2.1, 2.4, 2.2]))
    assert "ran 3 times back to back against Herald (p99 5.40, 4.10, 4.70 ms) and 3 times against the durable " \
           "floor (p99 2.10, 2.40, 2.20 ms)" in text
    assert repeated_rate_sentence([4.1], []) == []                      # one run: nothing to choose
    # The target's row says which run it is and lists the others.
    hz = {"max": _res(40000, ok=100000, server=200, writer=60), "rate": chosen, "half": None, "tls": None, "warmup": None}
    rows = tools.target_rows(hz, {"max": _res(80000), "tls": None, "rate": None}, {"rate": 5000}, durable=40000,
                             nginx_rate=80000, ratio=0.5, t1_met=True, t2_met=True, stored_new=5, total_2xx=5, sse_n=5,
                             durable_ok=True, rate_p99s=p99s)
    assert any("p99 **4.70 ms** (the median of 3 runs: 5.40, 4.10, 4.70 ms) at 5,000 req/s" in r for r in rows)
