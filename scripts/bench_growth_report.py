"""The markdown section of scripts/bench-growth: the table, and per factor a sentence computed from the
measurements — where the rate bends (the worst step, if it loses 10 % or more) and which measured
figure moved most with it. Pure functions of the results (tests/interop/test_bench_tools.py)."""

import time

NAMES = {
    "devices": "registered devices",
    "stored": "notifications already stored",
    "sessions": "live sessions receiving",
    "payload": "payload size",
    "connections": "provider connections (32 streams each)",
    "streams": "streams per connection (16 connections)",
}
BASELINE = {"devices": "1", "stored": "empty", "sessions": "1", "payload": "229 B", "connections": "16", "streams": "32"}
BEND = 0.10  # a step that loses this share of the rate or more is a bend
METRICS = [("server CPU per push", "cpu_us", "µs"), ("writer CPU per push", "writer_us", "µs"),
           ("writer bytes per push", "writer_bytes", "B"), ("p99", "p99", "ms")]
EXTRA = {"devices": [("server RSS", "rss_mib", "MiB")], "stored": [("database size", "db_bytes_before", "B")],
         "sessions": [("the session readers' CPU", "reader_cores", "cores")]}


def num(v, unit=""):
    if v is None:
        return "–"
    if unit == "B" and abs(v) >= 2**20:
        return f"{v / 2**30:,.2f} GiB" if abs(v) >= 2**30 else f"{v / 2**20:,.0f} MiB"
    if unit == "B" and abs(v) >= 100 * 2**10:
        return f"{v / 2**10:,.0f} KiB"
    digits = 0 if abs(v) >= 100 or unit == "B" else 1 if abs(v) >= 10 else 2
    return f"{v:,.{digits}f}" + (f" {unit}" if unit and unit != "B" else " B" if unit == "B" else "")


def spct(v):
    """A signed whole percentage: +5 %, −7 %."""
    return "–" if v is None else f"{'+' if v >= 0 else '−'}{abs(v):.0f} %"


def signed(v, unit):
    return "–" if v is None else ("+" if v >= 0 else "−") + num(abs(v), unit)


def ok(r):
    return r and not r.get("failed") and not r.get("skipped") and r.get("rate")


def pct(a, b):
    return a / b * 100 if a and b else None


def worst_step(rows):
    """The step between consecutive levels that loses the most rate: (before, after, share lost)."""
    steps = [(a, b, 1 - b["rate"] / a["rate"]) for a, b in zip(rows, rows[1:])]
    return max(steps, key=lambda s: s[2]) if steps else None


def moved_most(a, b, metrics):
    """The metric with the largest relative increase from row a to row b, as text; or None."""
    best = None
    for name, key, unit in metrics:
        x, y = a.get(key), b.get(key)
        if x is None or y is None or x <= 0:
            continue
        rel = (y - x) / x
        change = f"×{y / x:,.0f}" if rel >= 10 else f"{rel * 100:+.0f} %"
        if best is None or rel > best[0]:
            best = (rel, f"{name} {num(x, unit)} → {num(y, unit)} ({change})")
    return best[1] if best else None


def deltas(a, b):
    return (f"server CPU per push {signed(_d(a, b, 'cpu_us'), 'µs')}, writer {signed(_d(a, b, 'writer_us'), 'µs')}, "
            f"writer bytes per push {signed(_d(a, b, 'writer_bytes'), 'B')}, p99 {num(a.get('p99'))} → {num(b.get('p99'), 'ms')}")


def _d(a, b, key):
    return None if a.get(key) is None or b.get(key) is None else b[key] - a[key]


def growth_sentence(factor, rows, metrics):
    """For a factor whose levels grow a load (devices, stored rows, sessions, payload): the rate of each level
    as a share of the first's, the changes first → last, and where it bends."""
    ref, last = rows[0], rows[-1]
    shares = ", ".join(f"{r['label']} {pct(r['rate'], ref['rate']):.0f} %" for r in rows[1:])
    text = f"Rate as a share of {ref['label']}'s: {shares}; from {ref['label']} to {last['label']}: {deltas(ref, last)}."
    a, b, lost = worst_step(rows)
    if lost >= BEND:
        why = moved_most(a, b, metrics)
        text += f" It bends between {a['label']} and {b['label']} (rate −{lost * 100:.0f} %)" + \
            (f"; what moved most with it: {why}." if why else ".")
    else:
        why = moved_most(ref, last, METRICS)  # of the costs (the factor's own size grows by design)
        text += (f" It does not bend: no step loses {BEND * 100:.0f} % of the rate (the worst, {a['label']} → {b['label']}: "
                 f"{spct(-lost * 100)})") + (f"; what moved most: {why}." if why else ".")
    return text


def shared(rows, busy=0.5):
    """A caveat naming the rows measured while other processes used `busy` cores or more, or ""."""
    noisy = [f"{r['label']} ({r['other_cores']:.2f})" for r in rows if (r.get("other_cores") or 0) >= busy]
    return (f" Other processes used ≥ {busy} cores during {', '.join(noisy)} — the machine is shared: those rates are "
            "lower, and their latencies higher, than this machine's.") if noisy else ""


def concurrency_sentence(factor, rows, max_streams=None):
    """Connections or streams: where the rate peaks, how it is bound below (requests in flight) and above."""
    peak = max(rows, key=lambda r: r["rate"])
    flight = lambda r: r["c"] * r["m"]  # noqa: E731
    parts = [f"{r['label']}: {r['rate']:,.0f}/s with {flight(r):,} in flight, {num(r['cpu_us'], 'µs')} of server CPU "
             f"and p99 {num(r['p99'], 'ms')}" for r in rows]
    text = "; ".join(parts) + f". The rate peaks at {peak['label']}"
    below = [r for r in rows if r is not peak and flight(r) < flight(peak)]
    above = [r for r in rows if r is not peak and flight(r) > flight(peak)]
    if below:
        r = below[0]
        text += f"; at {r['label']} it is {pct(r['rate'], peak['rate']):.0f} % of the peak"
        if r.get("mean_ms"):
            bound = flight(r) / (r["mean_ms"] / 1000)  # Little's law
            text += (f": {flight(r):,} requests in flight at a mean latency of {num(r['mean_ms'], 'ms')} carry at most "
                     f"{bound:,.0f}/s, and it reached {pct(r['rate'], bound):.0f} % of that — "
                     + ("bound by the requests in flight and their latency" if r["rate"] >= 0.8 * bound else
                        "below that bound, so something besides the requests in flight limits it"))
    if above:
        r = above[-1]
        why = moved_most(peak, r, METRICS)
        text += (f"; at {r['label']} it is {pct(r['rate'], peak['rate']):.0f} % of the peak" +
                 (f", and what moved most is {why}" if why else "") +
                 (": past the peak more in flight only queues and costs (the bend)"
                  if pct(r["rate"], peak["rate"]) < (1 - BEND) * 100 else ": it holds"))
    text += "."
    if factor == "streams" and max_streams:
        top = max(r["m"] for r in rows)
        text += (f" The server advertises SETTINGS_MAX_CONCURRENT_STREAMS = {max_streams:,}: h2load's -m {top:,} is "
                 + ("within it (not capped)." if top <= max_streams else f"capped by it to {max_streams:,}."))
    return text


def refused_sentence(accepted, refused):
    ok_all = refused.get("refused_ok")
    n = refused.get("logged", 0)
    return (f"Refusing {refused['label']}: {'every one of' if ok_all else 'NOT all of'} the {n:,} answers is 413 "
            f"PayloadTooLarge ({', '.join(f'{k}: {v:,}' for k, v in refused['statuses'].items())}); it costs "
            f"{num(refused['cpu_us'], 'µs')} of server CPU per request — {pct(refused['cpu_us'], accepted['cpu_us']):.0f} % of an "
            f"accepted {accepted['label']} push's {num(accepted['cpu_us'], 'µs')} — at {refused['rate']:,.0f} answers/s "
            f"(p99 {num(refused['p99'], 'ms')}: h2load still sends each {refused['payload']:,}-byte body), "
            + (f"with {num(refused['writer_bytes'], 'B')} written by the writer thread per request (nothing is stored)."
               if refused.get("writer_bytes") is not None else "and nothing reached the store's writer thread (nothing is stored)."))


def also(r):
    """The row's factor-specific figures."""
    f = r["factor"]
    out = []
    if f == "devices" or (f == "sessions" and r.get("devices")):
        if r.get("devices"):
            out.append(f"{r['distinct_devices']:,} devices pushed")
        out.append(f"RSS {num(r.get('rss_mib'), 'MiB')}")
    if f == "stored":
        rows = r.get("rows_before") or 0
        out.append(f"{rows:,} rows, database {num(r.get('db_bytes_before'), 'B')}")
        if rows >= 100_000:
            out.append(f"{num(r['db_bytes_before'] / rows * 1e6, 'B')} per million notifications")
    if f == "sessions" and r.get("reader_cores") is not None:
        out.append(f"readers {num(r['reader_cores'])} cores")
    if f in ("connections", "streams"):
        out.append(f"{r['c'] * r['m']:,} in flight")
    if r.get("populate_s") is not None:
        out.append(f"written in {r['populate_s']:.0f} s, server start {r.get('start_s', 0):.1f} s")
    if (r.get("other_cores") or 0) >= 0.25:
        out.append(f"other processes {r['other_cores']:.2f} cores")
    return "; ".join(out)


def checks(r):
    out = []
    if r.get("expect") == 413:
        out.append(f"{r.get('logged', 0):,} × 413 {'PayloadTooLarge ✓' if r.get('refused_ok') else '✗ ' + str(r.get('statuses'))}")
    else:
        out.append(f"stored {r['stored_new']:,} of {r['accepted']:,} 2xx {'✓' if r.get('durable_ok') else '✗'}")
        if r.get("sessions"):
            out.append(f"live: {r['sessions_connected']:,} session{'s' if r['sessions_connected'] != 1 else ''} got "
                       f"{r['sessions_received']:,} of {r['sessions_expected']:,} {'✓' if r.get('sessions_ok') else '✗'}"
                       + (f", {r['duplicates']:,} repeats" if r.get("duplicates") else ""))
    if r.get("writer_how") == "by its writes":
        out.append("writer thread found by its writes (not named)")
    if r.get("seq_is_count") is False:
        out.append("seq ≠ rows (a row was changed): the counts above are by seq")
    if r.get("exit") not in (0, None):
        out.append(f"server exit {r['exit']}")
    return "; ".join(out)


def section(results, meta):
    L = ["## How the cost grows (scripts/bench-growth)", ""]
    L.append(f"- Command: `{meta['command']}`; {meta.get('date') or time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
             f"{meta['minutes']:.0f} minutes.")
    L.append(
        f"- One factor at a time from the baseline: the demo device, unlocked (previews shown), one live SSE session on it "
        f"reading, scripts/bench's 229-byte alert, `h2load -n {meta['pushes']:,} -c 16 -m 32 -t 1` after a warm-up of "
        f"{meta['warmup']:,}, an empty store. Every row is a fresh `herald serve` on its own data directory; each "
        "factor's baseline is measured again among its levels (this machine's speed drifts over minutes). CPU is "
        "utime+stime from `/proc` over the measured run per 2xx answer (per answer for the refused row): the server "
        "process's, and its store writer thread's (`herald-writer`), whose written bytes are its `wchar`.")
    L.append(
        "- Registered devices and stored notifications are written into the stopped server's SQLite file (what "
        "registration writes: a user, a device and its token per device, each device given the demo device's state; "
        "copies of a stored push with new seq and version-7 ids), then the server starts. h2load `-i` gives each "
        "connection the same URI list from its start, so a run reaches n/c devices of the registry, drawn at random; "
        "those pushes reach no live session (the session is on the demo device), so the 0-session row is their "
        "like-for-like reference. The many-session row registers as many devices, one session each, and spreads "
        "the pushes over them; a reference row pushes the same way to as many devices without sessions.")
    L.append("")
    L.append("| factor | level | pushes/s | server CPU µs/push | writer µs/push | writer B/push | p99 ms | also measured | checks |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for factor, rows in results.items():
        for r in rows:
            label = r["label"] + (" (baseline)" if BASELINE.get(factor) == r["label"] else "")
            if not ok(r):
                why = r.get("skipped") and f"skipped: {r['skipped']}" or f"failed: {r.get('failed', 'no result')}"
                L.append(f"| {NAMES[factor]} | {label} | – | – | – | – | – | | {why} |")
                continue
            L.append(f"| {NAMES[factor]} | {label} | {r['rate']:,.0f} | {num(r['cpu_us'])} | {num(r['writer_us'])} | "
                     f"{num(r['writer_bytes'])} | {num(r['p99'])} | {also(r)} | {checks(r)} |")
    L.append("")
    L.append("Where it bends, and why (computed from the rows above):")
    L.append("")
    for factor, rows in results.items():
        good = [r for r in rows if ok(r)]
        text = sentence(factor, good, results, meta)
        gone = [r for r in rows if not ok(r)]
        if gone:
            text += " Not measured: " + "; ".join(f"{r['label']} ({r.get('skipped') or r.get('failed')})" for r in gone) + "."
        L.append(f"- **{NAMES[factor].capitalize()}**: {text}")
    L.append("")
    return "\n".join(L)


def sentence(factor, good, results, meta):
    if len(good) < 2:
        return "fewer than two levels measured, nothing to compare."
    metrics = METRICS + EXTRA.get(factor, [])
    if factor in ("connections", "streams"):
        return concurrency_sentence(factor, good, meta.get("max_streams")) + shared(good)
    if factor == "payload":
        accepted = [r for r in good if r.get("expect") == 200]
        refused = [r for r in good if r.get("expect") == 413]
        text = growth_sentence(factor, accepted, metrics) if len(accepted) > 1 else ""
        if refused and accepted:
            text += " " + refused_sentence(accepted[0], refused[0])
        return text.strip() + shared(good)
    text = growth_sentence(factor, [r for r in good if not r.get("reference")], metrics)
    if factor == "devices":
        zero = next((r for r in results.get("sessions", []) if ok(r) and r["label"] == "0"), None)
        if zero:
            text += (f" Against the 0-session row ({zero['rate']:,.0f}/s, {num(zero['cpu_us'], 'µs')}; no live delivery "
                     f"either): {good[-1]['label']} devices reach {pct(good[-1]['rate'], zero['rate']):.0f} % of its rate.")
        spread = next((r for r in results.get("sessions", []) if ok(r) and r.get("reference")), None)
        last = good[-1]
        if spread and spread.get("writer_bytes") and last.get("writer_bytes") and len(good) > 1:
            same = abs(spread["writer_bytes"] - last["writer_bytes"]) <= 0.25 * last["writer_bytes"]
            text += (f" With only {spread['devices']:,} devices registered and the pushes spread over all of them (the sessions "
                     f"factor's reference row), the writer writes {num(spread['writer_bytes'], 'B')} per push, "
                     + (f"about as much as with {last['label']} ({num(last['writer_bytes'], 'B')}): the writer's bytes follow "
                        "how widely the pushes are spread over devices, not how many devices are registered."
                        if same else
                        f"against {num(last['writer_bytes'], 'B')} with {last['label']}: the registry's size itself moves them."))
    if factor == "sessions":
        by = {r["label"]: r for r in good}
        if "0" in by and "1" in by:
            text += (f" A live delivery costs {signed(_d(by['0'], by['1'], 'cpu_us'), 'µs')} of server CPU per push (0 → 1 "
                     "session); with more sessions each push still reaches one session.")
        ref = next((r for r in good if r.get("reference")), None)
        many = [r for r in good if r.get("sessions", 0) > 1]
        if ref and many:
            r = many[-1]
            text += (f" The {r['label']} sessions' row also spreads the pushes over {r['devices']:,} devices; the same devices "
                     f"without sessions ({ref['label']}) run {ref['rate']:,.0f}/s at {num(ref['cpu_us'], 'µs')} and "
                     f"{num(ref['writer_bytes'], 'B')} written per push, so with the sessions the server's CPU per push is "
                     f"{signed(_d(ref, r, 'cpu_us'), 'µs')} and the rate {pct(r['rate'], ref['rate']):.0f} % of that row's "
                     f"(the readers used {num(r.get('reader_cores'))} cores).")
    if factor == "stored":
        sized = [r for r in good if (r.get("rows_before") or 0) >= 100_000]
        if sized:
            r = sized[-1]
            text += (f" The database takes {num(r['db_bytes_before'] / r['rows_before'] * 1e6, 'B')} per million notifications "
                     f"({num(r['db_bytes_before'], 'B')} for {r['rows_before']:,}, file + WAL).")
    return text + shared(good)
