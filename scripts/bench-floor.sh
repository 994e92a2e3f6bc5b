# scripts/bench's HTTP/2 floor runs, sourced by it: Herald's APNs listener with nothing behind it
# (herald-h2-floor) under the same h2load commands as Herald and nginx, then the same listener answering
# only once a bare group commit has synced each request (--durable) at the fixed rate. It uses bench's
# variables (FLOOR, WORK, PY, TOOLS, NGX, NGX_URL, NGX_ROLES, the h2load settings and headers) and
# bench-lib.sh's functions; nginx is still running.

# start_floor NAME ARGS...: starts herald-h2-floor with ARGS (its ports to $WORK/NAME.ports, its errors to
# $WORK/NAME.log); sets FLOOR_PID, FLOOR_PORT and FLOOR_TLS_PORT (empty when it did not start in 10 s).
start_floor() {
  local name=$1
  shift
  "$FLOOR" --port 0 "$@" >"$WORK/$name.ports" 2>"$WORK/$name.log" &
  FLOOR_PID=$!
  PIDS+=("$FLOOR_PID")
  for _ in $(seq 100); do [ -s "$WORK/$name.ports" ] && break; sleep 0.1; done   # ≤ 10 s
  FLOOR_PORT=$("$PY" "$TOOLS" json-get "$WORK/$name.ports" cleartext 2>/dev/null || true)
  FLOOR_TLS_PORT=$("$PY" "$TOOLS" json-get "$WORK/$name.ports" tls 2>/dev/null || true)
}

# stop_floor NAME: stops it (SIGTERM, 10 s) and notes a kill or an exit status other than 0.
stop_floor() {
  stop_pid "$FLOOR_PID" TERM 10 || note "herald-h2-floor$1 did not stop within 10 s of SIGTERM and was killed."
  [ "$STOP_STATUS" = 0 ] || [ "$STOP_STATUS" = killed ] || note "herald-h2-floor$1 exited with status $STOP_STATUS."
}

run_floor() {
  if [ -x "$FLOOR" ]; then
    start_floor floor --tls-port 0 --certificate "$NGX/cert.pem" --key "$NGX/key.pem"
    if [ -n "$FLOOR_PORT" ] && [ -n "$FLOOR_TLS_PORT" ]; then
      log "herald-h2-floor (pid $FLOOR_PID) on 127.0.0.1:$FLOOR_PORT and :$FLOOR_TLS_PORT (TLS)"
      ROLES=("server=$FLOOR_PID")
      FLOOR_URL="http://127.0.0.1:$FLOOR_PORT/3/device/$DEVICE_TOKEN"
      run_h2load floor-warmup "$FLOOR_URL" -n "$WARMUP" -c "$CLIENTS" -m "$STREAMS" -t 1 -d "$PAYLOAD" "${HEADERS[@]}"
      run_h2load floor-max "$FLOOR_URL" -n "$REQUESTS" -c "$CLIENTS" -m "$STREAMS" -t 1 -d "$PAYLOAD" "${HEADERS[@]}"
      run_h2load floor-tls "https://127.0.0.1:$FLOOR_TLS_PORT/3/device/$DEVICE_TOKEN" -n "$REQUESTS" -c "$CLIENTS" \
        -m "$STREAMS" -t 1 "${TLS_ARGS[@]}" -d "$PAYLOAD" "${HEADERS[@]}"
      # Two more max-load pairs, nginx then the floor, one right after the other: what 0.4x nginx allows
      # a push follows nginx's rate, which moves by tens of percent between runs (the report takes the
      # pair whose budget is the median).
      for round in 2 3; do
        ROLES=("${NGX_ROLES[@]}")
        run_h2load "nginx-max-$round" "$NGX_URL" -n "$REQUESTS" -c "$CLIENTS" -m "$STREAMS" -t 1 -d "$PAYLOAD" "${NGX_HEADERS[@]}"
        ROLES=("server=$FLOOR_PID")
        run_h2load "floor-max-$round" "$FLOOR_URL" -n "$REQUESTS" -c "$CLIENTS" -m "$STREAMS" -t 1 -d "$PAYLOAD" "${HEADERS[@]}"
      done
    else
      note "herald-h2-floor did not start: $(head -3 "$WORK/floor.log" | tr '\n' ' ')"
    fi
    stop_floor ""
    # The same listener answering each request once a bare group commit has synced it (write + fdatasync
    # of about what Herald's writer writes a push to one device, on the disk Herald's data was on): the
    # least a durable answer waits, at the fixed rate beside Herald's p99 target.
    FLOOR_RECORD_BYTES=1700
    start_floor floor-durable --durable "$WORK/floor-durable.data" --record-bytes "$FLOOR_RECORD_BYTES"
    if [ -n "$FLOOR_PORT" ]; then
      log "herald-h2-floor --durable (pid $FLOOR_PID) on 127.0.0.1:$FLOOR_PORT"
      ROLES=("server=$FLOOR_PID")
      meta floor_record_bytes "$FLOOR_RECORD_BYTES" int
      FLOOR_URL="http://127.0.0.1:$FLOOR_PORT/3/device/$DEVICE_TOKEN"
      run_h2load floor-durable-warmup "$FLOOR_URL" -n "$WARMUP" -c "$CLIENTS" -m "$STREAMS" -t 1 -d "$PAYLOAD" "${HEADERS[@]}"
      for run in floor-durable-rate floor-durable-rate-2 floor-durable-rate-3; do   # three, as Herald's
        run_h2load "$run" "$FLOOR_URL" -n "$RATE_REQUESTS" -c "$RATE_CLIENTS" -m "$RATE_STREAMS" --rps "$RPS" -t 1 \
          -d "$PAYLOAD" "${HEADERS[@]}"
      done
    else
      note "herald-h2-floor --durable did not start: $(head -3 "$WORK/floor-durable.log" | tr '\n' ' ')"
    fi
    stop_floor " --durable"
    rm -f "$WORK/floor-durable.data"
  else
    note "$note_later"
  fi
}
