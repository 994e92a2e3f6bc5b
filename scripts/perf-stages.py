#!/usr/bin/env python3
"""The push path's CPU by stage, from a `perf record -g` of the server (scripts/profile-push perf).

Each sample is given to the first stage whose pattern matches a frame of its call stack, walking
from the leaf toward the root: a `swift_retain`, a `malloc` or a `memcpy` counts for the code that
called it (the store's insert, the HPACK encoder, …), a kernel frame for the user-space code that
made the system call (an `fsync` under SQLite is the commit, a `sendmsg` under NIO a socket write).
A sample none of whose frames names a stage goes by its leaf (the allocator, reference counting,
memory copies): release builds lose frames (`[unknown]`) under `perf record -g`. The rest is
`other`. An approximation to find where the time goes, not a measurement of any one function.

  scripts/perf-stages.py PERF_DATA [--us-per-push X]     (X: the server's CPU per push, to print µs)
  scripts/perf-stages.py PERF_DATA --json OUT            also write the counts as JSON (scripts/bench:
                                                         its "Where a push's CPU goes" section)
"""
import argparse
import collections
import json
import re
import subprocess
import sys

# (stage, pattern), tried in this order for each frame, over the frame's name: `Module.Type` for a
# Swift symbol (its mangled name's first two parts: a signature's types never match), the symbol
# itself for C and the kernel.
STAGES = [
    ("commit: WAL write + fsync (kernel)", r"^(fsync|fdatasync|__libc_fsync|__libc_pwrite|pwrite|vfs_write|ext4_|generic_perform_write|jbd2|file_write_and_wait|unixSync|sqlite3OsSync|sqlite3OsWrite|unixWrite)"),
    ("SQLite (B-trees, records, WAL frames)", r"^(sqlite3|vfs_read|filemap_read|__libc_pread)"),
    ("store code (GRDB, Herald's rows and bindings)", r"^(GRDB\.|HeraldStore\.SQLiteStore|HeraldStore\.NotificationRow|HeraldStore\.UpsertText)"),
    ("writer (queue, batch, commit callback)", r"^HeraldServer\.NotificationWriter|^HeraldStore\."),
    ("HPACK (NIOHPACK)", r"^NIOHPACK\."),
    ("HTTP/2 framing (NIOHTTP2, the connection handler)", r"^(NIOHTTP2\.|HeraldAPNs\.)"),
    ("provider token (JWT, ES256)", r"^(HeraldCore\.Provider|Crypto\.|_CryptoExtras\.|__ecp_|ecp_nistz|bn_|BN_|EC_|ECDSA|sha256|SHA256)"),
    ("payload parse and validate", r"^HeraldCore\.(PushValidator|APNsPayload|PayloadParser|JSONParser|AcceptedPush|DeviceTokenFormat|APNsID|APNsRequest)"),
    ("decide (delivery policy)", r"^(HeraldDelivery\.|HeraldPolicy\.)"),
    ("fan-out (hub, SSE/WebSocket encoding)", r"^HeraldAPI\."),
    ("push service (the rest of handle)", r"^(HeraldServer\.|HeraldCore\.|HeraldMetrics\.)"),
    ("socket reads and writes (kernel)", r"^(sendmsg|recvmsg|writev|readv|__libc_write|__libc_read|__send|__recv|__sys_sendmsg|__sys_recvmsg|sock_|tcp_|ip_|skb_|__x64_sys_(write|read|sendmsg|recvmsg))"),
    ("event loop, wake-ups, scheduling", r"^(NIOPosix\.|NIOCore\.|epoll|futex|__x64_sys_futex|__x64_sys_epoll|swift_task|swift_job|_dispatch|pthread_cond|schedule)"),
]
# When no frame of a sample names a stage (release builds lose frames: `[unknown]`), what its leaf
# does at least.
FALLBACK = [
    ("allocator (malloc, free), caller unknown", r"^(malloc|_int_malloc|_int_free|free|cfree|malloc_consolidate|unlink_chunk|realloc|_int_realloc|swift_slowAlloc|swift_slowDealloc|swift_allocObject|swift_deallocClassInstance)"),
    ("reference counting, caller unknown", r"^(swift_retain|swift_release|swift_bridgeObjectRetain|swift_bridgeObjectRelease|swift_unknownObject)"),
    ("memory copies, caller unknown", r"^(__mem|memcpy|memmove|memset|memcmp|__pi_mem|copy_)"),
]
COMPILED = [(name, re.compile(pattern)) for name, pattern in STAGES]
COMPILED_FALLBACK = [(name, re.compile(pattern)) for name, pattern in FALLBACK]
MANGLED = re.compile(r"^\$s(\d+)")


def frame_name(symbol):
    """`Module.Type` (or `Module.function`) of a mangled Swift symbol; other symbols as they are. A member
    of an extension is named by the extension's module: NIOHPACK's Huffman coder on NIOCore's ByteBuffer
    (`$s7NIOCore10ByteBufferV8NIOHPACKE…`) is `NIOHPACK.ByteBuffer`, HPACK's work, not the event loop's."""
    match = MANGLED.match(symbol)
    if not match:
        return symbol
    at = match.end()
    module = symbol[at:at + int(match.group(1))]
    rest = symbol[at + int(match.group(1)):]
    entity = re.match(r"^(\d+)", rest)
    if entity:
        n = len(entity.group(1))
        after = rest[n + int(entity.group(1)):]
        rest = rest[n:n + int(entity.group(1))]
        # `<type><kind V/C/O><length><Module>E`: an extension of the type in another module.
        extension = re.match(r"^[VCO](\d+)", after)
        if extension:
            start = extension.end()
            name = after[start:start + int(extension.group(1))]
            if after[start + len(name):start + len(name) + 1] == "E" and re.match(r"^[A-Z_]\w*$", name):
                module = name
    else:
        rest = ""
    return f"{module}.{rest}"


def stage_of(stack):
    names = [frame_name(symbol) for symbol in stack]
    for table in (COMPILED, COMPILED_FALLBACK):
        for name in names:  # leaf first
            for stage, pattern in table:
                if pattern.search(name):
                    return stage
    return OTHER


OTHER = "other (unattributed)"


def frame_symbol(text):
    """The symbol of a `perf script` frame, `symbol (dso)`. SQLite's static functions have no symbol in
    Debian's libsqlite3 (`[unknown]`): they are named `sqlite3[static]`, so they count for the store."""
    symbol, _, dso = text.rpartition(" (")
    if not symbol:
        return text
    if symbol == "[unknown]" and "libsqlite3" in dso:
        return "sqlite3[static]"
    return symbol


def samples(perf_data):
    """Yields (thread name, [symbols leaf first]) for each sample of `perf script`."""
    out = subprocess.run(["perf", "script", "-i", perf_data, "-F", "comm,ip,sym,dso", "--no-demangle"],
                         capture_output=True, text=True, errors="replace", check=True).stdout
    comm, stack = None, []
    for line in out.splitlines():
        if not line.strip():
            if comm is not None:
                yield comm, stack
            comm, stack = None, []
        elif line.startswith("\t"):
            parts = line.split(None, 1)
            stack.append(frame_symbol(parts[1].strip() if len(parts) > 1 else ""))
        else:
            if comm is not None:
                yield comm, stack
            comm, stack = line.strip(), []
    if comm is not None:
        yield comm, stack


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("perf_data")
    parser.add_argument("--us-per-push", type=float, default=None)
    parser.add_argument("--json", default=None, help="write {total, writer_total, us_per_push, stages: [{name, samples, writer}]}")
    args = parser.parse_args()
    by_stage = collections.Counter()
    writer = collections.Counter()
    checkpoint = collections.Counter()
    total = 0
    for comm, stack in samples(args.perf_data):
        stage = stage_of(stack)
        by_stage[stage] += 1
        if comm.startswith("herald-writer"):
            writer[stage] += 1
        elif comm.startswith("herald-ckpt"):  # WALCheckpointer's thread
            checkpoint[stage] += 1
        total += 1
    if not total:
        print("perf-stages: no samples", file=sys.stderr)
        return 1
    writer_total = sum(writer.values())
    head = f"{'stage':52} {'share':>6}"
    if args.us_per_push:
        head += f" {'µs/push':>8}"
    head += f" {'of it on herald-writer':>23}"
    print(head)
    for name, _ in STAGES + FALLBACK + [(OTHER, None)]:
        count = by_stage.get(name, 0)
        if not count:
            continue
        row = f"{name:52} {100 * count / total:5.1f}%"
        if args.us_per_push:
            row += f" {args.us_per_push * count / total:8.1f}"
        row += f" {100 * writer.get(name, 0) / total:22.1f}%"
        print(row)
    print(f"{total:,} samples; the store writer thread (herald-writer) {100 * writer_total / total:.1f}% of them, "
          f"the checkpoint thread (herald-ckpt) {100 * sum(checkpoint.values()) / total:.1f}%")
    if args.json:
        stages = [{"name": name, "samples": by_stage.get(name, 0), "writer": writer.get(name, 0),
                   "checkpoint": checkpoint.get(name, 0)}
                  for name, _ in STAGES + FALLBACK + [(OTHER, None)]]
        with open(args.json, "w") as out:
            json.dump({"total": total, "writer_total": writer_total, "checkpoint_total": sum(checkpoint.values()),
                       "us_per_push": args.us_per_push, "stages": stages}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
