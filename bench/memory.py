#!/usr/bin/env python3
"""Resident memory of `okf serve` under distinct DWP asks, as reported in BENCHMARKS.md.

Usage: bench/memory.py OKF_BIN [REQUESTS] [CONNECTIONS] [--mixed] [-- extra okf serve flags]

Starts OKF_BIN serve with the DWP index, sends REQUESTS (default 50,000) asks, each a
different question, over CONNECTIONS (default 4) keep-alive connections, and prints the
server's VmRSS and VmHWM (from /proc/PID/status) after every tenth of the run. The
environment is passed on, so MALLOC_ARENA_MAX and the like reach the server. Loopback only,
bounded in count.

With --mixed, the asks take turns as `POST /api/ask`, the same compressed (zstd), MCP
`tools/call ask_okf`, and a first `POST /api/catalogue` page: every form the server keeps
with a package (compressed body, brief and MCP text block, delivery context) is made.
"""

import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DWP = os.path.join(ROOT, "..", "shared", "dwp", "full-dmg", "context", "assembly-index.json")
DWP_SHA = "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54"
DWP_URL = (
    "https://raw.githubusercontent.com/chris-page-gov/okf-dwp/"
    "efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json"
)


def status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) // 1024
    return fields


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1 :]
        args = args[: args.index("--")]
    mixed = "--mixed" in args
    args = [a for a in args if a != "--mixed"]
    okf = args[0]
    total = int(args[1]) if len(args) > 1 else 50_000
    connections = int(args[2]) if len(args) > 2 else 4
    question = json.load(
        open(os.path.join(ROOT, "..", "shared", "dwp", "evaluation", "context-assembly", "imprisonment-case.json"))
    )["question"]
    with tempfile.TemporaryDirectory() as tmp:
        registry = os.path.join(tmp, "registry.toml")
        with open(registry, "w") as f:
            f.write(
                f'[[bundle]]\nid = "okf-dwp"\nindex = "{os.path.abspath(DWP)}"\n'
                f'sha256 = "{DWP_SHA}"\nindex_url = "{DWP_URL}"\n'
            )
        server = subprocess.Popen(
            [okf, "serve", "--registry", registry, "--listen", "127.0.0.1:0",
             "--rate-limit-per-minute", "0", "--max-concurrent", "1024",
             "--client-max-concurrent", "1024", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        try:
            line = server.stdout.readline()
            port = int(line.rsplit(":", 1)[1])
            print(f"idle: {status(server.pid)}")
            counter = iter(range(total))
            lock = threading.Lock()
            done = [0]
            failures = [0]
            checkpoints = {total * k // 10 for k in range(1, 11)}

            def worker():
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                while True:
                    with lock:
                        n = next(counter, None)
                    if n is None:
                        break
                    ask = {"bundle": "okf-dwp", "question": f"{question} ({n})"}
                    path, headers = "/api/ask", {"Content-Type": "application/json"}
                    kind = n % 4 if mixed else 0
                    if kind == 1:
                        headers["Accept-Encoding"] = "zstd"
                    elif kind == 2:
                        path = "/mcp"
                        headers["Accept"] = "application/json, text/event-stream"
                        headers["MCP-Protocol-Version"] = "2025-11-25"
                        ask = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                               "params": {"name": "ask_okf", "arguments": ask}}
                    elif kind == 3:
                        path = "/api/catalogue"
                    conn.request("POST", path, json.dumps(ask), headers)
                    response = conn.getresponse()
                    response.read()
                    with lock:
                        done[0] += 1
                        if response.status != 200:
                            failures[0] += 1
                        if done[0] in checkpoints:
                            print(f"after {done[0]:>6} asks: {status(server.pid)}", flush=True)

            started = time.monotonic()
            threads = [threading.Thread(target=worker) for _ in range(connections)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.monotonic() - started
            print(f"{done[0]} asks ({failures[0]} not 200) in {elapsed:.0f} s; end: {status(server.pid)}")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
