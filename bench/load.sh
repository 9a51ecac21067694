#!/usr/bin/env bash
# Load test of `okf serve` on loopback with wrk (Debian package `wrk`), as reported in
# BENCHMARKS.md. Usage: bench/load.sh [DURATION_SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-10}"
connections="${2:-16}"
command -v wrk >/dev/null || { echo "install wrk (apt-get install wrk)" >&2; exit 2; }
# OKF_BIN names another build to measure (an older commit's, for a before/after in one run);
# otherwise the release build of this tree, where cargo puts it.
if [ -n "${OKF_BIN:-}" ]; then
  okf="$OKF_BIN"
else
  cargo build --release -p okf --locked >/dev/null
  target_dir=$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
  okf="$target_dir/release/okf"
fi
dir=$(mktemp -d)
cat > "$dir/registry.toml" <<TOML
[[bundle]]
id = "okf-dwp"
index = "$PWD/../shared/dwp/full-dmg/context/assembly-index.json"
sha256 = "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54"
index_url = "https://raw.githubusercontent.com/chris-page-gov/okf-dwp/efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json"
TOML
example_index="$PWD/crates/okf/example/index.json"
example_sha=$(sha256sum "$example_index" | cut -d' ' -f1)
cat >> "$dir/registry.toml" <<TOML

[[bundle]]
id = "example"
index = "$example_index"
sha256 = "$example_sha"
index_url = "https://example.org/okf-example/index.json"
TOML
# Limits are raised so that the test measures the engine and transport, not the 429 guard
# (wrk is one client address: its shares are raised too, but still counted, so the cost of
# the per-client tables is in the numbers).
# (A build from before the per-client budgets has no such flags.)
per_client=()
if "$okf" serve --help | grep -q -- --client-max-concurrent; then
  per_client=(--client-max-concurrent 1024 --client-max-reading 1024 --client-max-connections 1024)
fi
"$okf" serve --registry "$dir/registry.toml" --listen 127.0.0.1:0 \
  --rate-limit-per-minute 0 --max-concurrent 1024 "${per_client[@]}" > "$dir/out" 2> "$dir/log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 50); do grep -q listening "$dir/out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$dir/out")
q_dwp=$(python3 -c "import json;print(json.load(open('../shared/dwp/evaluation/context-assembly/imprisonment-case.json'))['question'])")
run() { # name path body [wrk script]
  echo "== $1"
  BODY="$3" PATHNAME="$2" wrk -t"$(( connections < 2 ? connections : 2 ))" -c"$connections" -d"${duration}s" --latency -s "${4:-bench/post.lua}" "$url" \
    | grep -E "Requests/sec|Transfer/sec|^ +(50|75|90|99)%|non_200|Latency "
}
ask() { python3 -c 'import json,sys;print(json.dumps({"bundle":sys.argv[1],"question":sys.argv[2]}))' "$1" "$2"; }
mcp() { python3 -c 'import json,sys;print(json.dumps({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_okf","arguments":{"bundle":sys.argv[1],"question":sys.argv[2]}}}))' "$1" "$2"; }
run "POST /api/ask, example bundle" /api/ask "$(ask example 'How do I borrow books?')"
run "POST /api/ask, DWP imprisonment question" /api/ask "$(ask okf-dwp "$q_dwp")"
run "MCP tools/call ask_okf, example bundle" /mcp "$(mcp example 'How do I borrow books?')"
run "MCP tools/call ask_okf, DWP imprisonment question" /mcp "$(mcp okf-dwp "$q_dwp")"
# The bounded-delivery tools on the same question: the first catalogue page, and one 64 KiB
# package slice (both replay the question; the read names the context_id it must reproduce).
cid=$(curl -s -X POST -H 'Content-Type: application/json' "$url/api/ask" -d "$(ask okf-dwp "$q_dwp")" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["context_id"])')
tool() { python3 -c 'import json,sys;print(json.dumps({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":sys.argv[1],"arguments":json.loads(sys.argv[2])}}))' "$1" "$2"; }
manifest_args=$(python3 -c 'import json,sys;print(json.dumps({"bundle":"okf-dwp","question":sys.argv[1],"delivery_bytes":16384}))' "$q_dwp")
read_args=$(python3 -c 'import json,sys;print(json.dumps({"bundle":"okf-dwp","question":sys.argv[1],"context_id":sys.argv[2],"section":"package","offset":0,"delivery_bytes":65536}))' "$q_dwp" "$cid")
run "MCP tools/call ask_okf_manifest, DWP imprisonment question" /mcp "$(tool ask_okf_manifest "$manifest_args")"
run "MCP tools/call read_okf_evidence (package, 64 KiB slice), DWP imprisonment question" /mcp "$(tool read_okf_evidence "$read_args")"
# ChatGPT's pair on the same question: the search list, and one record's text (a fetch needs
# the search that listed its id).
search_args=$(python3 -c 'import json,sys;print(json.dumps({"query":sys.argv[1]}))' "okf-dwp: $q_dwp")
curl -s -X POST -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  "$url/mcp" -d "$(tool search "$search_args")" > /dev/null
run "MCP tools/call search, DWP imprisonment question" /mcp "$(tool search "$search_args")"
run "MCP tools/call fetch (first record), DWP imprisonment question" /mcp "$(tool fetch "{\"id\":\"$cid#record-1\"}")"
# A different question on every request (the DWP question plus "(request N)"; about the same
# 489 KB package): nothing is reused between requests, so this is the cost of a first ask.
q_distinct="$q_dwp (request @N@)"
run "distinct questions: POST /api/ask, DWP" /api/ask "$(ask okf-dwp "$q_distinct")" bench/post_distinct.lua
run "distinct questions: MCP tools/call ask_okf, DWP" /mcp "$(mcp okf-dwp "$q_distinct")" bench/post_distinct.lua
distinct_manifest=$(python3 -c 'import json,sys;print(json.dumps({"bundle":"okf-dwp","question":sys.argv[1],"delivery_bytes":16384}))' "$q_distinct")
run "distinct questions: MCP tools/call ask_okf_manifest, DWP" /mcp "$(tool ask_okf_manifest "$distinct_manifest")" bench/post_distinct.lua
# One client, sequential: the cost of one MCP ask_okf against one POST /api/ask.
connections=1
run "sequential: POST /api/ask, DWP imprisonment question" /api/ask "$(ask okf-dwp "$q_dwp")"
run "sequential: MCP tools/call ask_okf, DWP imprisonment question" /mcp "$(mcp okf-dwp "$q_dwp")"
run "sequential, distinct questions: POST /api/ask, DWP" /api/ask "$(ask okf-dwp "$q_distinct")" bench/post_distinct.lua
run "sequential, distinct questions: MCP tools/call ask_okf, DWP" /mcp "$(mcp okf-dwp "$q_distinct")" bench/post_distinct.lua
echo "== server memory"
grep -E "VmRSS|VmHWM" "/proc/$pid/status"
