"""scripts/bench's report, its parts: formatting, the issue's targets and their rows, the HTTP/2 floor's
section (scripts/bench-tools.py report puts them together with bench_report.report)."""

import json
import math


def percentile(sorted_values, p):
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def bursts(starts_us, within_us=200):
    """How a run's requests were sent: requests starting within `within_us` of the one before count as one
    burst. {count, per_s, median_size, median_gap_ms} (gap: from a burst's last start to the next's first), or
    None for fewer than two requests. h2load's --rps sends a client's due requests together on each tick."""
    starts = sorted(starts_us)
    if len(starts) < 2:
        return None
    sizes, gaps, size = [], [], 1
    for before, start in zip(starts, starts[1:]):
        if start - before <= within_us:
            size += 1
        else:
            sizes.append(size)
            gaps.append((start - before) / 1000.0)
            size = 1
    sizes.append(size)
    span_s = (starts[-1] - starts[0]) / 1e6
    return {
        "count": len(sizes),
        "per_s": len(sizes) / span_s if span_s else None,
        "median_size": sorted(sizes)[len(sizes) // 2],
        "median_gap_ms": sorted(gaps)[len(gaps) // 2] if gaps else None,
    }


def fmt_ms(v):
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_int(v):
    return "–" if v is None else f"{v:,}"


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


# The targets (issue 15)
RATIO_TARGET = 0.4      # durable pushes/s at max load, as a ratio to nginx `return 200`
RATIO_AIM = 0.5
CPU_TARGET_US = 22.0    # server CPU per push
WRITER_TARGET_US = 7.0  # the store writer thread per push
P99_TARGET_MS = 5.0     # p99 at 5,000 pushes/s


def cpu_per_2xx_us(res, role):
    """µs of a role's CPU (utime+stime over the run) per 2xx answer, with the seconds it used; or (None, None)."""
    c = (res or {}).get("cpu") or {}
    j = (c.get("jiffies") or {}).get(role)
    if j is None or not c.get("hz") or not res.get("ok"):
        return None, None
    seconds = j / c["hz"]
    return seconds / res["ok"] * 1e6, seconds


def floor_cost(floor, nginx):
    """(µs of server CPU a request, share of nginx's rate) of a floor run against nginx's run of the same kind;
    None when either was not measured."""
    us = cpu_per_2xx_us(floor, "server")[0]
    rate = ((nginx or {}).get("h2load") or {}).get("req_per_s")
    if us is None or not rate:
        return None
    return us, floor["h2load"].get("req_per_s", 0) / rate


def median_floor_pair(pairs, ratio_target=RATIO_TARGET):
    """Of (floor, nginx) max-load runs measured one right after the other, the median pair by what ratio_target ×
    nginx allows a push (the floor's µs a request × its share of nginx's rate / ratio_target): (its µs a request, its
    share, every measured pair's budget in run order); None when no pair was measured. nginx's rate moves by tens of
    percent between runs, and the budget with it; with an even count, the lower median."""
    measured = [cost for cost in (floor_cost(floor, nginx) for floor, nginx in pairs) if cost and cost[0] and cost[1]]
    if not measured:
        return None
    budgets = [us * share / ratio_target for us, share in measured]
    median = sorted(range(len(measured)), key=lambda i: budgets[i])[(len(measured) - 1) // 2]
    return measured[median][0], measured[median][1], budgets


def target_rows(hz, nx, meta, *, durable, nginx_rate, ratio, t1_met, t2_met, stored_new, total_2xx, sse_n, durable_ok,
                rate_p99s=()):
    """The rows of the Targets table: ratio to nginx, CPU per push, writer per push, p99 at 5,000/s and at half
    of Herald's own max rate, and the ratio over TLS."""
    met = lambda ok: "**met**" if ok else "**not met**"  # noqa: E731
    rows = []
    if ratio is not None:
        rows.append(
            f"| durable pushes/s at max load (validation, decision, store, live fan-out) ≥ {RATIO_TARGET}× nginx "
            f"`return 200` (aim {RATIO_AIM}×) | {durable:,.0f} 2xx/s vs nginx {nginx_rate:,.0f} req/s = **{ratio:.2f}×**; "
            f"stored {fmt_int(stored_new)} of {fmt_int(total_2xx)} 2xx; live session got {fmt_int(sse_n)} | "
            f"{met(t1_met)} (aim {RATIO_AIM}×: {'met' if t1_met and ratio >= RATIO_AIM else 'not met'}) |"
        )
    else:
        rows.append(f"| durable pushes/s at max load ≥ {RATIO_TARGET}× nginx `return 200` | no result | **not met** |")
    for role, label, target in (("server", "server CPU", CPU_TARGET_US), ("writer", "the store writer thread", WRITER_TARGET_US)):
        us, seconds = cpu_per_2xx_us(hz["max"], role)
        if us is None:
            rows.append(f"| {label} ≤ {target:g} µs per push | not measured | **not met** |")
        else:
            rows.append(
                f"| {label} ≤ {target:g} µs per push | **{us:.1f} µs** ({seconds:.2f} s of CPU over the max-load run / "
                f"{hz['max']['ok']:,} 2xx) | {met(us <= target)} |"
            )
    rate_target, rate_res = meta.get("rate"), hz["rate"]
    if rate_target is not None and rate_target != 5000:
        rows.append(f"| p99 ≤ {P99_TARGET_MS:g} ms at 5,000 pushes/s | not measured: this run used {rate_target:,}/s (BENCH_RATE) | **not met** |")
    elif rate_res:
        rows.append(
            f"| p99 ≤ {P99_TARGET_MS:g} ms at 5,000 pushes/s | p99 **{fmt_ms(rate_res['latency_ms']['p99'])} ms** "
            + (f"(the median of {len(rate_p99s)} runs: {', '.join(fmt_ms(v) for v in rate_p99s)} ms) "
               if len(rate_p99s) > 1 else "")
            + f"at "
            f"{rate_res.get('rate_h2load') or 0:,.0f} req/s achieved ({rate_res['not_ok']:,} non-2xx) | {met(t2_met)} |"
        )
    else:
        rows.append(f"| p99 ≤ {P99_TARGET_MS:g} ms at 5,000 pushes/s | no result | **not met** |")
    half, half_res = meta.get("half_rate"), hz["half"]
    if half and half_res:
        rows.append(
            f"| p99 at half of Herald's max rate in this run ({half:,}/s) | p99 **{fmt_ms(half_res['latency_ms']['p99'])} ms** "
            f"at {half_res.get('rate_h2load') or 0:,.0f} req/s achieved ({half_res['not_ok']:,} non-2xx) | reported (no target) |"
        )
    else:
        rows.append("| p99 at half of Herald's max rate | not measured (see the notes) | reported (no target) |")
    h_tls, n_tls = hz["tls"], nx["tls"]
    h_rate = (h_tls or {}).get("rate_2xx_h2load")
    n_rate = (n_tls or {}).get("h2load", {}).get("req_per_s")
    if h_rate and n_rate:
        tls_ratio = h_rate / n_rate
        tls = (h_tls["h2load"].get("tls") or {})
        rows.append(
            f"| over TLS (h2 by ALPN, {tls.get('protocol', '?')} {tls.get('cipher', '?')}): durable pushes/s ≥ {RATIO_TARGET}× "
            f"nginx with TLS + http2 | {h_rate:,.0f} 2xx/s vs nginx {n_rate:,.0f} req/s = **{tls_ratio:.2f}×** | "
            f"{met(tls_ratio >= RATIO_TARGET and durable_ok and h_tls['not_ok'] == 0)} |"
        )
    else:
        rows.append(f"| over TLS: durable pushes/s ≥ {RATIO_TARGET}× nginx with TLS + http2 | no result | **not met** |")
    return rows


def floor_section(hz, nx, fl):
    """Where a push's server CPU goes at max load: the HTTP/2 layer alone (herald-h2-floor: the same listener
    answering at once), the rest Herald's own work; nginx's whole request beside them; what the targets leave."""
    L = ["", "## The HTTP/2 floor", ""]
    herald_us, _ = cpu_per_2xx_us(hz["max"], "server")
    writer_us, _ = cpu_per_2xx_us(hz["max"], "writer")
    floor_us, _ = cpu_per_2xx_us(fl["max"], "server")
    nginx_us, _ = cpu_per_2xx_us(nx["max"], "server")
    floor_tls_us, _ = cpu_per_2xx_us(fl["tls"], "server")
    herald_tls_us, _ = cpu_per_2xx_us(hz["tls"], "server")
    if floor_us is None or herald_us is None:
        L.append("Not measured in this run (see the notes).")
        return L
    L.append(
        "`herald-h2-floor` runs Herald's APNs listener — the same event loops, NIOHTTP2 pipeline, connection handler "
        "and answer frames — with a handler that answers every request at once as an accepted push (an `apns-id` "
        "and an `apns-unique-id`), driven by the same h2load commands. Its CPU per request is what the HTTP/2 layer "
        "costs; a push's cost above it is Herald's own work (token, validation, decision, the store, the live "
        "fan-out). Server CPU (utime+stime, `/proc`) over the max-load runs, per 2xx answer:"
    )
    L.append("")
    L.append("| | µs per request (h2c) | µs per request (TLS) | req/s (h2c) |")
    L.append("|---|---|---|---|")
    rate = lambda res: f"{res['h2load'].get('req_per_s', 0):,.0f}" if res else "–"  # noqa: E731
    us = lambda v: f"{v:.1f}" if v is not None else "–"  # noqa: E731
    L.append(f"| nginx `return 200` (one worker) | {us(nginx_us)} | {us(cpu_per_2xx_us(nx['tls'], 'server')[0])} | {rate(nx['max'])} |")
    L.append(f"| Herald's HTTP/2 layer alone (`herald-h2-floor`) | {us(floor_us)} | {us(floor_tls_us)} | {rate(fl['max'])} |")
    L.append(f"| Herald, a durable push | {us(herald_us)} | {us(herald_tls_us)} | {rate(hz['max'])} |")
    L.append("")
    own = herald_us - floor_us
    sentence = (
        f"Of Herald's {herald_us:.1f} µs a push, the HTTP/2 layer is {floor_us:.1f} µs"
        + (f" ({floor_us / nginx_us:.1f}× nginx's whole request, {nginx_us:.1f} µs)" if nginx_us else "")
        + f" and Herald's own work {own:.1f} µs"
        + (f", of which the store's writer thread {writer_us:.1f} µs" if writer_us is not None else "")
        + ". "
    )
    if floor_us >= CPU_TARGET_US:
        sentence += (
            f"The {CPU_TARGET_US:g} µs target is below the HTTP/2 layer's own cost on this machine: it cannot be met "
            "without replacing NIOHTTP2 and HPACK, whatever the push path does."
        )
    else:
        sentence += (
            f"The {CPU_TARGET_US:g} µs target leaves {CPU_TARGET_US - floor_us:.1f} µs above the HTTP/2 layer for "
            f"everything a push does; it takes {own:.1f} µs."
        )
    if fl["max"] and nx["max"] and nx["max"]["h2load"].get("req_per_s"):
        share = fl["max"]["h2load"].get("req_per_s", 0) / nx["max"]["h2load"]["req_per_s"]
        sentence += (
            f" The floor itself reaches {share:.2f}× nginx's rate, so {RATIO_TARGET}× nginx leaves a push "
            f"{share / RATIO_TARGET:.2f}× the floor's time per request at the same CPU."
        )
    L.append(sentence)
    return L




def median_p99_run(runs):
    """Of repeated fixed-rate runs (in run order), the one with the median p99 (of an even count, the higher
    middle one) and every run's p99 in run order; a run without a result is left out."""
    done = [r for r in runs if r and (r.get("latency_ms") or {}).get("p99") is not None]
    if not done:
        return None, []
    return sorted(done, key=lambda r: r["latency_ms"]["p99"])[len(done) // 2], [r["latency_ms"]["p99"] for r in done]


def repeated_rate_sentence(herald_p99s, floor_p99s):
    """Which of the repeated fixed-rate runs the rows show: one run's p99 moves with this machine's drift."""
    if len(herald_p99s) < 2:
        return []
    ms = lambda values: ", ".join(fmt_ms(v) for v in values)  # noqa: E731
    text = (
        f"The fixed-rate command ran {len(herald_p99s)} times back to back against Herald (p99 {ms(herald_p99s)} ms)"
        + (f" and {len(floor_p99s)} times against the durable floor (p99 {ms(floor_p99s)} ms)" if floor_p99s else "")
        + ": one 10 s run's p99 moves by ±0.7 ms with this machine's drift, so each row, the target and the "
        "sentences below are from the run with the median p99."
    )
    return ["", text]


def burst_sentences(herald_rate, nginx_rate):
    """How h2load sent the fixed-rate runs: the p99 at 5,000/s is the wait of a burst's last push."""
    herald_b = (herald_rate or {}).get("bursts")
    if not herald_b:
        return []
    nginx_b = (nginx_rate or {}).get("bursts")
    sentence = (
        f"At a fixed rate h2load does not space the requests evenly: its `--rps` timer sends each client's due "
        f"requests together. In Herald's 5,000/s run, {herald_b['count']:,} bursts ({herald_b['per_s']:,.0f} a second; "
        f"requests that start within 0.2 ms of the one before are one burst) of a median {herald_b['median_size']} "
        f"requests, {fmt_ms(herald_b['median_gap_ms'])} ms apart"
        + (f" (nginx's run: a median {nginx_b['median_size']}, {fmt_ms(nginx_b['median_gap_ms'])} ms apart)" if nginx_b else "")
        + ". A burst's pushes are read, validated and decided in turn by their connection's event loop, stored in one "
        "or two group commits, and answered once the loop has handled them all: that wait, not a steady 5,000/s, is "
        "what the p99 measures."
    )
    return ["", sentence]


def latency_floor_sentences(herald_rate, floor_rate, record_bytes, rate_target):
    """The p99 target against the least a durable answer costs in the same bursts: Herald's listener answering
    once a bare group commit (write + fdatasync, no SQLite) has synced the request (`herald-h2-floor --durable`)."""
    if not floor_rate or not floor_rate.get("latency_ms"):
        return []
    f = floor_rate["latency_ms"]
    text = (
        f"The least a durable answer waits in these bursts: `herald-h2-floor --durable` answers each request once a "
        f"group commit has written {record_bytes:,} B for it to a file and synced it (`fdatasync`; no SQLite, no rows) "
        f"— Herald's listener and writer thread with nothing else behind them. The same fixed-rate command "
        f"({fmt_int(rate_target)}/s) gave it p50 {fmt_ms(f['p50'])}, p90 {fmt_ms(f['p90'])}, p99 {fmt_ms(f['p99'])} ms "
        f"({floor_rate.get('not_ok', 0):,} non-2xx). "
    )
    if f["p99"] > P99_TARGET_MS:
        text += (
            f"The p99 ≤ {P99_TARGET_MS:g} ms target is below what the HTTP/2 layer and a bare durable commit take "
            "on this machine: it cannot be met by a server that syncs a push before its 200, whatever its push path does."
        )
    elif herald_rate and herald_rate.get("latency_ms"):
        h = herald_rate["latency_ms"]
        text += (
            f"It leaves {fmt_ms(P99_TARGET_MS - f['p99'])} ms of the {P99_TARGET_MS:g} ms p99 for Herald's own work; "
            f"Herald's p99 is {fmt_ms(h['p99'])} ms, {fmt_ms(h['p99'] - f['p99'])} ms above it "
            f"(p50: {fmt_ms(h['p50'] - f['p50'])} ms above)."
        )
    return ["", text]


def cpu_section(named, nproc):
    """The cores each run (label, result) used: the server, h2load, the SSE reader, everything else, idle; the longest gap."""
    L = []
    L.append("## CPU during the runs")
    L.append("")
    L.append(
        "Average cores in use over each h2load run (from `/proc`: the server's process, the live session's reader, "
        "h2load, and everything else on the machine), of "
        f"{nproc}; and the longest time in which no response completed."
    )
    L.append("")
    L.append("| run | wall s | server | h2load | SSE reader | other processes | idle | longest gap without a response | server µs per 2xx | writer thread µs per 2xx |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for name, res in named:
        if not res:
            continue
        c = res.get("cpu") or {}
        f2 = lambda v: "–" if v is None else f"{v:.2f}"  # noqa: E731
        idle = (c["cpus"] - c["busy"]) if c.get("cpus") is not None and c.get("busy") is not None else None
        gap = res.get("longest_gap_ms")
        gap_s = "–" if gap is None else (
            f"{fmt_ms(gap)} ms" + (f" (at {res['longest_gap_at_s']:.1f} s)" if res.get("longest_gap_at_s") is not None else "")
        )
        per = [cpu_per_2xx_us(res, role)[0] for role in ("server", "writer")]
        L.append(
            f"| {name} | {c.get('wall_s', '–')} | {f2(c.get('server'))} | {f2(c.get('loadgen'))} | "
            f"{f2(c.get('reader')) if 'reader' in c else 'n/a'} | {f2(c.get('other'))} | {f2(idle)} | {gap_s} | "
            + " | ".join("–" if v is None else f"{v:.1f}" for v in per) + " |"
        )
    return L
