# scripts/bench-lib.sh — scripts/bench's helpers (sourced by it, not run): logging, waiting for a quiet
# machine, the processes it starts and their cleanup on exit, the tools it needs, the report's metadata
# and one h2load run summarised with the CPU used meanwhile. It expects ROOT, TOOLS, PY, SETTLE,
# SETTLE_BUSY and RUN_TIMEOUT from scripts/bench, and (once scripts/bench made them) WORK, RES and META.

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

settle() { # name: wait (bounded) until the machine is quiet, record what was seen
  local r
  r=$("$PY" "$TOOLS" settle "$SETTLE" "$SETTLE_BUSY")
  meta "settle_$1" "$r"
  log "machine before the $1 runs: waited ${r% *} s, CPUs ${r#* } busy"
}

# --- processes and cleanup ---------------------------------------------------------------------
PIDS=()
WORK=""
alive() { # pid: running (not a zombie)
  local state
  state=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}
STOP_STATUS=""
stop_pid() { # pid signal seconds: signal a process we started, wait (bounded) until it is gone; STOP_STATUS
  local pid=$1 sig=$2 secs=$3 i
  STOP_STATUS=""
  if alive "$pid"; then
    kill "-$sig" "$pid" 2>/dev/null || true
    for (( i = 0; i < secs * 10; i++ )); do
      alive "$pid" || break
      sleep 0.1
    done
  fi
  if alive "$pid"; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    STOP_STATUS=killed
    return 1
  fi
  wait "$pid" 2>/dev/null && STOP_STATUS=0 || STOP_STATUS=$?
  return 0
}
cleanup() {
  local rc=$? pid
  trap - EXIT INT TERM
  for pid in "${PIDS[@]+"${PIDS[@]}"}"; do stop_pid "$pid" TERM 10 || true; done
  if [ -n "$WORK" ] && [ -d "$WORK" ]; then
    if [ "${BENCH_KEEP:-0}" = 1 ] || [ "$rc" -ne 0 ]; then log "kept $WORK"; else rm -rf "$WORK"; fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- tools ---------------------------------------------------------------------------------------
if [ -x "$ROOT/scripts/setup" ]; then
  "$ROOT/scripts/setup" >&2
else
  need=()
  command -v h2load >/dev/null || need+=(nghttp2-client)
  [ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || need+=(nginx-light)
  command -v sqlite3 >/dev/null || need+=(sqlite3)
  if [ ${#need[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}"
  fi
  "$PY" -c 'import cryptography' 2>/dev/null || "$PY" -m pip install -q cryptography \
    || "$PY" -m pip install -q --break-system-packages cryptography
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
for t in h2load sqlite3 curl timeout openssl "$NGINX"; do command -v "$t" >/dev/null || die "$t not found"; done
# The TLS row needs nginx's ssl and http_v2 modules (Debian's nginx has both; scripts/setup installs it).
NGINX_V=$("$NGINX" -V 2>&1)
for module in http_ssl_module http_v2_module; do
  grep -q -- "--with-$module" <<<"$NGINX_V" || die "$NGINX lacks $module (nginx -V); scripts/setup installs Debian's nginx, which has it"
done

meta() { "$PY" "$TOOLS" meta-set "$META" "$@"; }
note() { log "note: $1"; "$PY" "$TOOLS" meta-set "$META" notes "$1" note; }

# record_run_meta: what the report says about the run — the command line with the knobs set, the machine,
# the tools' versions, the binary and the commit it was built from, the load's parameters.
record_run_meta() {
  local command_line="scripts/bench" v BIN_TREE
  for v in BENCH_PROFILE_REQUESTS BENCH_REQUESTS BENCH_WARMUP BENCH_RATE BENCH_RATE_SECONDS BENCH_SETTLE BENCH_SETTLE_BUSY BENCH_RUN_TIMEOUT BENCH_OUT BENCH_ONLY_MAIN HERALD_BIN; do
    if [ -n "${!v:-}" ]; then command_line="$v=${!v} $command_line"; fi
  done
  meta command "$command_line"
  meta date "$(date -u '+%Y-%m-%d %H:%M UTC')"
  meta nproc "$(nproc)" int
  meta cpu_model "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  meta mem "$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  meta kernel "Linux $(uname -r)"
  meta loadavg_start "$(cut -d' ' -f1-3 /proc/loadavg)"
  meta h2load_version "$(h2load --version 2>&1 | head -1)"
  meta nginx_version "$("$NGINX" -v 2>&1 | sed 's/^nginx version: //')"
  meta sqlite_version "$(sqlite3 --version | cut -d' ' -f1)"
  meta herald_bin "${HERALD#"$ROOT"/}"
  # The commit the binary was built from: its own checkout's when it lies in one (a release build kept in
  # another clone), else this repository's.
  BIN_TREE=$(git -C "$(dirname "$HERALD")" rev-parse --show-toplevel 2>/dev/null || echo "$ROOT")
  meta commit "$(git -C "$BIN_TREE" describe --always --dirty 2>/dev/null || echo unknown)"
  meta build "$BUILD"
  meta requests "$REQUESTS" int
  meta clients "$CLIENTS" int
  meta streams "$STREAMS" int
  meta rate "$RATE" int
  meta rate_clients "$RATE_CLIENTS" int
  meta rate_streams "$RATE_STREAMS" int
  meta rps_per_client "$RPS" int
  meta rate_requests "$RATE_REQUESTS" int
  meta rate_seconds "$RATE_SECONDS" int
  meta settle_busy "$SETTLE_BUSY" float
}

# run_h2load NAME URL ARGS...: one h2load run with a per-request log, summarised into $RES/NAME.json,
# with the CPU used meanwhile by the processes in ROLES (ROLE=PID,...), h2load (children of this shell)
# and everything else on the machine
ROLES=()
run_h2load() {
  local name=$1 url=$2 rc=0
  shift 2
  log "$name: h2load $* $url"
  # What the bench wrote so far (the binaries' copies, earlier runs' logs) goes to disk now: the kernel
  # writes dirty pages back 30 s after they were written, and a flush of ~150 MB in the middle of a run
  # held a durable server's fdatasync 50-85 ms (one such stall puts hundreds of answers past the p99).
  sync
  "$PY" "$TOOLS" cpu-snap "$WORK/$name.cpu0" $$ "${ROLES[@]}"
  timeout "$RUN_TIMEOUT" h2load "$@" --log-file="$WORK/$name.log" "$url" >"$WORK/$name.out" 2>&1 || rc=$?
  "$PY" "$TOOLS" cpu-snap "$WORK/$name.cpu1" $$ "${ROLES[@]}"
  if [ "$rc" -ne 0 ]; then
    note "$name: h2load exited with status $rc$([ "$rc" = 124 ] && echo " (killed after ${RUN_TIMEOUT} s)")."
  fi
  grep -E '^(finished in|requests:|status codes:)' "$WORK/$name.out" | sed 's/^/  /' >&2 || true
  "$PY" "$TOOLS" h2load-stats "$WORK/$name.log" "$WORK/$name.out" "$RES/$name.json" >&2
  "$PY" "$TOOLS" cpu-usage "$WORK/$name.cpu0" "$WORK/$name.cpu1" "$RES/$name.json"
  cp "$WORK/$name.out" "$RES/$name.h2load.txt"
}
