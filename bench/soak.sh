#!/usr/bin/env bash
# Loopback soak of `okf serve` (issue 16), as reported in BENCHMARKS.md: steady mixed traffic
# (the page and its assets, POST /api/ask and MCP tools/call ask_okf, on both the example and
# the DWP bundle) for DURATION seconds from wrk (Debian package `wrk`), resident memory sampled
# every 10 s from /proc. Passes (exit 0) only with zero 4xx/5xx, zero socket errors and every
# RSS sample after the first minute (warm-up) within 10 % of the first sample after it.
# Usage: bench/soak.sh [DURATION_SECONDS=600] [CONNECTIONS=8] [DELAY_MS=20]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-600}"
connections="${2:-8}"
delay_ms="${3:-20}"
warmup=60
command -v wrk >/dev/null || { echo "install wrk (apt-get install wrk)" >&2; exit 2; }
bin="${OKF_BIN:-target/release/okf}"  # OKF_BIN: try the script against another build
[ -n "${OKF_BIN:-}" ] || cargo build --release -p okf --locked >/dev/null
dir=$(mktemp -d)
dwp_index="$PWD/../shared/dwp/full-dmg/context/assembly-index.json"
example_index="$PWD/crates/okf/example/index.json"
cat > "$dir/registry.toml" <<TOML
[[bundle]]
id = "okf-dwp"
index = "$dwp_index"
sha256 = "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54"
index_url = "https://raw.githubusercontent.com/chris-page-gov/okf-dwp/efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json"

[[bundle]]
id = "example"
index = "$example_index"
sha256 = "$(sha256sum "$example_index" | cut -d' ' -f1)"
index_url = "https://example.org/okf-example/index.json"
TOML
# The rate limit is off so that the soak measures the server, not the 429 guard; the wrk
# pause keeps the load steady (a few hundred requests per second).
"$bin" serve --registry "$dir/registry.toml" --listen 127.0.0.1:0 \
  --rate-limit-per-minute 0 --max-concurrent 1024 --log-format json > "$dir/out" 2> "$dir/log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 100); do grep -q listening "$dir/out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$dir/out")

# The request mix: one line per request, METHOD<TAB>PATH<TAB>BODY.
python3 - "$dir/requests.tsv" <<'PY'
import json, sys
dwp = json.load(open('../shared/dwp/evaluation/context-assembly/imprisonment-case.json'))['question']
example = [q['question'] for q in json.load(open('crates/okf/example/questions.json'))]
def ask(bundle, question):
    return ('POST', '/api/ask', json.dumps({'bundle': bundle, 'question': question}))
def mcp(bundle, question):
    return ('POST', '/mcp', json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
        'params': {'name': 'ask_okf', 'arguments': {'bundle': bundle, 'question': question}}}))
rows = [('GET', '/', ''), ('GET', '/assets/app.js', ''), ('GET', '/api/bundles', '')]
rows += [ask('example', q) for q in example] + [mcp('example', q) for q in example[:2]]
rows += [ask('okf-dwp', dwp), mcp('okf-dwp', dwp), ask('okf-dwp', 'What happens to JSA when a claimant is imprisoned?')]
with open(sys.argv[1], 'w') as f:
    for row in rows:
        f.write('\t'.join(row) + '\n')
PY
echo "soak: $duration s, $connections connections, ${delay_ms} ms pause, $(wc -l < "$dir/requests.tsv") request kinds, server pid $pid"

rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
(
  start=$(date +%s)
  while kill -0 "$pid" 2>/dev/null; do
    echo "$(( $(date +%s) - start )) $(rss)"
    sleep 10
  done
) > "$dir/rss" &
sampler=$!
SOAK_REQUESTS="$dir/requests.tsv" SOAK_DELAY_MS="$delay_ms" \
  wrk -t2 -c"$connections" -d"${duration}s" --timeout 10s -s bench/soak.lua "$url" | tee "$dir/wrk"
kill $sampler 2>/dev/null || true
metrics=$(curl -sf "$url/metrics")

echo "== responses by route and status (server /metrics)"
sed -n 's/^okf_http_requests_total//p' <<<"$metrics"
echo "== assemblies"
sed -n 's/^okf_assemblies_total//p' <<<"$metrics"
five=$(awk '/^okf_http_requests_total.*status="5/ {s += $2} END {print s + 0}' <<<"$metrics")
four=$(awk '/^okf_http_requests_total.*status="4/ {s += $2} END {print s + 0}' <<<"$metrics")
sockets=$(awk '/^socket_errors/ {split($0, a, /[= ]/); print a[3] + a[5] + a[7] + a[9]}' "$dir/wrk")
echo "== resident memory (kB), sampled every 10 s (seconds:kB)"
awk '{printf "%s:%s ", $1, $2} END {print ""}' "$dir/rss" | fold -s -w 100
# Flat: every sample after the warm-up minute within 10 % of the first sample after it.
awk -v w="$warmup" '
  { t[NR] = $1; r[NR] = $2 }
  END {
    for (i = 1; i <= NR; i++) if (t[i] >= w) { base = r[i]; bt = t[i]; break }
    lo = base; hi = base
    for (i = 1; i <= NR; i++) if (t[i] >= w) { if (r[i] < lo) lo = r[i]; if (r[i] > hi) hi = r[i] }
    printf "start %d kB (t=%ds); after warm-up %d kB (t=%ds); end %d kB (t=%ds), %+.1f %%\n", r[1], t[1], base, bt, r[NR], t[NR], 100 * (r[NR] - base) / base
    printf "after warm-up: min %d kB (%+.1f %%), max %d kB (%+.1f %%)\n", lo, 100 * (lo - base) / base, hi, 100 * (hi - base) / base
    exit (hi - base) * 10 > base || (base - lo) * 10 > base
  }' "$dir/rss" && flat=1 || flat=0
grep -E "VmHWM" "/proc/$pid/status"
echo "== 5xx: $five, 4xx: $four, socket errors: $sockets, RSS flat within 10 %: $([ $flat = 1 ] && echo yes || echo no)"
[ "$five" = 0 ] && [ "$four" = 0 ] && [ "$sockets" = 0 ] && [ $flat = 1 ]
