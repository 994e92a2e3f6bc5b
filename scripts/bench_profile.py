"""scripts/bench's "Where a push's CPU goes" section: a `perf record` of the server under
`scripts/profile-push perf` (its PROFILE_JSON), split by stage of the push path (scripts/perf-stages.py),
and what each CPU target leaves once the parts the push path cannot drop are paid: the HTTP/2 layer (the
floor's run) and what SQLite and the kernel do to store a push durably (the profile's store stages).
"""

# The stages scripts/perf-stages.py names, as this section groups them.
COMMIT = "commit: WAL write + fsync (kernel)"
SQLITE = "SQLite (B-trees, records, WAL frames)"
HTTP2 = ("HPACK (NIOHPACK)", "HTTP/2 framing (NIOHTTP2, the connection handler)")


def profile_section(profile, floor_us, cpu_target_us, writer_target_us, command, floor_share=None, ratio_target=0.4,
                    logic=None, logic_command="herald-push-logic-bench", floor_tls=None, pair_budgets=None):
    """Markdown lines. `profile`: scripts/profile-push's PROFILE_JSON (None when not measured); `floor_us`: the
    HTTP/2 floor's server CPU per request in this run (None when not measured); `floor_share`: the floor's max rate
    as a share of nginx's in this run (None when not measured); `logic`: herald-push-logic-bench's JSON line (None
    when not measured): Herald's per-push logic alone on one thread; `floor_tls`: (µs a request, share of nginx's
    rate) of the floor over TLS (None when not measured); `pair_budgets`: what 0.4× nginx allows a push in each
    floor/nginx pair measured one after the other, when `floor_us` and `floor_share` are the median pair's."""
    L = ["", "## Where a push's CPU goes (perf)", ""]
    stages = (profile or {}).get("stages") or {}
    total = stages.get("total") or 0
    server_us = (profile or {}).get("server_us")
    if not total or not server_us:
        L.append("Not measured in this run (see the notes).")
        return L
    writer_us = profile.get("writer_us")
    L.append(
        f"`{command}` on the same binary, after the runs above: a fresh server and data directory, the demo device "
        f"unlocked with one live SSE session, {profile.get('pushes', 0):,} pushes (`-c 16 -m 32`) at "
        f"{profile.get('rate', 0):,.0f}/s, {server_us:.1f} µs of server CPU a push"
        + (f" ({writer_us:.1f} µs on the writer thread)" if writer_us is not None else "")
        + f", {profile.get('pushes_per_commit', 0):.0f} pushes a commit, {profile.get('wal_bytes_per_push', 0):,.0f} B "
        "written by the writer thread a push. `perf record -F 499 -g` of the server during the run; each sample counts "
        "for the first stage a frame of its stack names, from the leaf up (`scripts/perf-stages.py`: a `malloc` or an "
        "`fsync` counts for the code that called it). A sample's share times the CPU per push gives its µs."
    )
    L.append("")

    def us(name, thread="samples"):
        for stage in stages.get("stages", []):
            if stage["name"] == name:
                return server_us * stage.get(thread, 0) / total
        return 0.0

    L.append("| stage | share of samples | µs a push | of it on the writer thread (µs) | on the checkpoint thread (µs) |")
    L.append("|---|---|---|---|---|")
    for stage in stages.get("stages", []):
        if stage["samples"]:
            L.append(
                f"| {stage['name']} | {100 * stage['samples'] / total:.1f} % | {us(stage['name']):.1f} | "
                f"{us(stage['name'], 'writer'):.1f} | {us(stage['name'], 'checkpoint'):.1f} |"
            )
    writer_profile_us = server_us * stages.get("writer_total", 0) / total
    checkpoint_us = server_us * stages.get("checkpoint_total", 0) / total
    L.append(f"| **all** ({total:,} samples) | 100 % | {server_us:.1f} | {writer_profile_us:.1f} | {checkpoint_us:.1f} |")
    L.append("")

    # What storing a push durably costs SQLite and the kernel: on the writer thread, SQLite's own frames
    # and the WAL's write and fsync; and the checkpoint thread's copy of the log into the database file.
    sqlite_writer_us = us(SQLITE, "writer") + us(COMMIT, "writer")
    durable_us = sqlite_writer_us + checkpoint_us
    herald_writer_us = writer_profile_us - sqlite_writer_us
    http2_profile_us = sum(us(name) for name in HTTP2)
    # Everything else a push does: the token, the payload, the decision, the fan-out, the event loops.
    others = server_us - http2_profile_us - durable_us
    # The fastest round: a lower bound (the machine's drift only adds to a round).
    logic_us = (logic or {}).get("min_us_per_push", (logic or {}).get("us_per_push"))
    L.append("What each CPU target leaves, from this profile and the floor's run"
             + (" and Herald's logic measured alone:" if logic_us is not None else ":"))
    L.append("")
    if logic_us is not None:
        L.append(
            f"- **Herald's logic alone.** `{logic_command}` runs the server's own `PushService.handle` on one thread "
            "with warm caches, the same push each time (the demo device unlocked, the provider token verified once): "
            "the token check, the payload's parse and APNs validation, the rate limit and expiry rules, the decision "
            f"and the stored row, queued for the server's group commit (which runs on its own threads, not counted). "
            f"{logic_us:.1f} µs a push in the fastest of {len(logic.get('rounds', []))} rounds of "
            f"{logic.get('pushes_per_round', 0):,} (their median {logic.get('us_per_push', logic_us):.1f}). "
            "No hand-off between threads, no fan-out, no event loop and no HTTP/2 is in it: with the HTTP/2 layer and "
            "durable storage it is a lower bound of a push's CPU."
        )

    def verdict(budget, what, floor=None):
        """The sentence on what `budget` µs leave once the parts that stay are paid (the HTTP/2 layer: `floor`,
        else the cleartext floor's)."""
        paid = (floor_us if floor is None else floor) + durable_us
        if paid >= budget:
            return (f"Together {paid:.1f} µs: over {what} before the token, the payload, the decision, the fan-out "
                    f"and the event loops, which take {others:.1f} µs here. It cannot be met with NIOHTTP2 and a "
                    "durable SQLite store on this machine.")
        if logic_us is not None and paid + logic_us >= budget:
            return (f"With Herald's logic measured alone ({logic_us:.1f} µs), {paid + logic_us:.1f} µs: over {what} "
                    f"before any hand-off between threads, the fan-out and the event loops ({max(others - logic_us, 0):.1f} "
                    "µs more here). It cannot be met with NIOHTTP2, a durable SQLite store and this logic on this "
                    "machine.")
        if logic_us is not None:
            return (f"That leaves {budget - paid:.1f} µs for everything else a push does, which takes {others:.1f} µs "
                    f"here; of it, Herald's logic alone takes {logic_us:.1f} µs, so {budget - paid - logic_us:.1f} µs "
                    "would be left for the hand-offs between threads, the fan-out and the event loops.")
        return (f"That leaves {budget - paid:.1f} µs for everything else a push does (the token, the payload, the "
                f"decision, the fan-out, the event loops, Herald's store code), which takes {others:.1f} µs here.")

    if floor_us is not None:
        L.append(
            f"- **Server CPU ≤ {cpu_target_us:g} µs a push.** The HTTP/2 layer alone costs {floor_us:.1f} µs a request "
            f"(the floor's run; {http2_profile_us:.1f} µs in this profile's NIOHTTP2 and HPACK frames). Storing the "
            f"push durably costs {durable_us:.1f} µs of SQLite and kernel work: {sqlite_writer_us:.1f} µs on the "
            f"writer thread (SQLite's own frames, the WAL's write and fsync) and {checkpoint_us:.1f} µs on the "
            "checkpoint thread (the log copied into the database file). " + verdict(cpu_target_us, "the target")
        )
    if floor_us is not None and floor_share:
        # The floor's rate over its CPU a request: at the same CPU a second, a push may take the floor's
        # time a request times floor_share / ratio_target.
        allowed = floor_us * floor_share / ratio_target
        pairs = (f" (the median of {len(pair_budgets)} pairs of max-load runs, nginx then the floor, one right after "
                 f"the other: {', '.join(f'{b:.1f}' for b in pair_budgets)} µs)" if pair_budgets and len(pair_budgets) > 1
                 else "")
        L.append(
            f"- **≥ {ratio_target:g}× nginx.** The floor reaches {floor_share:.2f}× nginx's rate at {floor_us:.1f} µs a "
            f"request, so at the same CPU {ratio_target:g}× nginx allows a push {allowed:.1f} µs{pairs}. The HTTP/2 "
            f"layer and durable storage take {floor_us + durable_us:.1f} µs of it. " + verdict(allowed, "what it allows")
        )
    if floor_tls and floor_tls[0] and floor_tls[1]:
        # Over TLS both the floor and nginx pay for the encryption; the store's work and the logic are the same.
        tls_us, tls_share = floor_tls
        allowed = tls_us * tls_share / ratio_target
        L.append(
            f"- **≥ {ratio_target:g}× nginx over TLS.** The floor over TLS reaches {tls_share:.2f}× nginx's TLS rate at "
            f"{tls_us:.1f} µs a request, so {ratio_target:g}× nginx over TLS allows a push {allowed:.1f} µs. The HTTP/2 "
            f"layer over TLS and durable storage take {tls_us + durable_us:.1f} µs of it. "
            + verdict(allowed, "what it allows", floor=tls_us)
        )
    if writer_us is not None:
        L.append(
            f"- **Writer thread ≤ {writer_target_us:g} µs a push.** In this profile the writer thread takes "
            f"{writer_profile_us:.1f} µs a push: SQLite's own frames {us(SQLITE, 'writer'):.1f} µs and the kernel's "
            f"WAL write and fsync {us(COMMIT, 'writer'):.1f} µs ({sqlite_writer_us:.1f} µs together), Herald's work on it "
            f"(GRDB and the row bindings, the queue, the batch, the completions, allocation) {herald_writer_us:.1f} µs. "
            + (
                "SQLite and the kernel alone are over the target: it cannot be met with this schema and "
                "`synchronous = FULL`."
                if sqlite_writer_us >= writer_target_us
                else f"SQLite and the kernel leave {writer_target_us - sqlite_writer_us:.1f} µs of the target to "
                f"Herald's {herald_writer_us:.1f} µs."
            )
        )
    return L
