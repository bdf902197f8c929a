#!/usr/bin/env bash
# serve against process on the same warm jobs, on this machine, in one run: process reads N identical warm jobs
# from a file; wrk posts the same job to serve over 32 keep-alive connections for the same wall time. Prints both
# rates, their ratio, serve's p50 and p99, and the CPU time each spends per job. The CPU ratio is the steadier
# figure on a small machine: wrk runs on the same cores, and on loopback the kernel charges the client's TCP receive
# work to the server's send. Needs wrk (apt-get install -y wrk) and a release build.
#
#   scripts/serve_bench.sh [JOBS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-20000}
seconds=${2:-5}
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 1; }
swift build -c release --product richpush >/dev/null
binary=.build/release/richpush
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
origin="https://media.example.com/=$PWD/Fixtures/media"
job='{"id":"w","payload":{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/hero.jpg"}}'

# Warm the cache once, then time process on the warm jobs.
echo "$job" | "$binary" process --cache-dir "$work/cache" --local-origin "$origin" >/dev/null 2>&1
for _ in $(seq 1 "$jobs"); do echo "$job"; done > "$work/jobs.ndjson"
# Wall time and the child's CPU time (user + system), in seconds.
read -r process_wall process_cpu < <(python3 - "$binary" "$work" "$origin" <<'PY'
import resource, subprocess, sys, time
binary, work, origin = sys.argv[1:]
start = time.monotonic()
subprocess.run([binary, "process", "--cache-dir", f"{work}/cache", "--local-origin", origin, f"{work}/jobs.ndjson"],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(time.monotonic() - start, usage.ru_utime + usage.ru_stime)
PY
)
process_rate=$(python3 -c "print(round($jobs / $process_wall))")

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$binary" serve --listen "127.0.0.1:$port" --cache-dir "$work/cache" --local-origin "$origin" \
  --public-base-url https://cdn.example.com/richpush 2>"$work/serve.log" &
server=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$job'
wrk.headers["Content-Type"] = "application/json"
LUA
# utime + stime of the server, in clock ticks, around the wrk run.
server_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
ticks_before=$(server_ticks)
wrk -t1 -c32 -d"${seconds}s" --latency -s "$work/post.lua" "http://127.0.0.1:$port/v1/enrich" > "$work/wrk.txt"
ticks_after=$(server_ticks)
requests=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
serve_rate=$(awk '/Requests\/sec/ {print int($2)}' "$work/wrk.txt")
p50=$(awk '$1 == "50%" {print $2}' "$work/wrk.txt")
p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")
errors=$(grep -c "Non-2xx" "$work/wrk.txt" || true)
echo "process: $process_rate jobs/s ($jobs warm jobs)"
echo "serve:   $serve_rate requests/s (wrk, 32 connections, ${seconds}s), p50 $p50, p99 $p99"
python3 - <<PY
process_cpu = $process_cpu / $jobs * 1e6
serve_cpu = ($ticks_after - $ticks_before) / $(getconf CLK_TCK) / $requests * 1e6
print(f"CPU per job: process {process_cpu:.1f} us, serve {serve_cpu:.1f} us")
print(f"serve / process: {$serve_rate / $process_rate:.2f}x by rate, {process_cpu / serve_cpu:.2f}x by CPU per job")
PY
[ "$errors" = 0 ] || { echo "wrk saw non-2xx answers" >&2; exit 1; }
