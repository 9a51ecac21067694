#!/usr/bin/env python3
"""Reruns the loopback attack reproductions (the hardening findings) against a running `okf serve`.

Usage: attack-repro.py HOST:PORT SERVER_PID [IDLE_CONNECTIONS]

Bounded and loopback only. Idle connections are opened from worker processes of at most
10,000 sockets each (so no single client needs a file-descriptor limit above 20,000).
Prints one JSON object of measurements.
"""
import json
import multiprocessing as mp
import os
import socket
import sys
import time
import http.client


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return -1


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def get(addr, path, method="GET", body=None, headers=None):
    host, port = addr.rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=10)
    started = time.monotonic()
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        return r.status, dict(r.getheaders()), data, time.monotonic() - started
    except Exception as e:  # noqa: BLE001 - a measurement, not a test
        return None, {}, repr(e).encode(), time.monotonic() - started
    finally:
        c.close()


def hold_idle(addr, count, hold_seconds, out):
    host, port = addr.rsplit(":", 1)
    socks, refused = [], 0
    for _ in range(count):
        s = socket.socket()
        s.setblocking(True)
        s.settimeout(2)
        try:
            s.connect((host, int(port)))
            socks.append(s)
        except OSError:
            refused += 1
            s.close()
    time.sleep(hold_seconds)
    closed = 0
    for s in socks:
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    out.put({"opened": len(socks), "refused": refused, "closed_by_server": closed})


def main():
    addr, pid = sys.argv[1], int(sys.argv[2])
    idle = int(sys.argv[3]) if len(sys.argv) > 3 else 20_100
    report = {"rss_mb_before": rss_mb(pid), "fds_before": fds(pid)}

    # 1. Idle connections: they must be closed or refused; /health must answer meanwhile.
    out = mp.Queue()
    per = 10_000
    workers = []
    for i in range(0, idle, per):
        p = mp.Process(target=hold_idle, args=(addr, min(per, idle - i), 12, out))
        p.start()
        workers.append(p)
    time.sleep(4)
    report["fds_during_idle"] = fds(pid)
    report["rss_mb_during_idle"] = rss_mb(pid)
    status, _, _, took = get(addr, "/health")
    report["health_during_idle"] = {"status": status, "seconds": round(took, 3)}
    results = [out.get() for _ in workers]
    for p in workers:
        p.join()
    report["idle"] = {k: sum(r[k] for r in results) for k in results[0]}
    time.sleep(1)
    report["fds_after_idle"] = fds(pid)
    report["health_after_idle"] = get(addr, "/health")[0]
    report["rss_mb_after_idle"] = rss_mb(pid)

    # 3. 12,500 requests to a 404 route (past any one 6,000-per-minute window), then /health
    # and an ask.
    statuses = {}
    host, port = addr.rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=10)
    for _ in range(12_500):
        try:
            c.request("GET", "/nope")
            r = c.getresponse()
            r.read()
            statuses[r.status] = statuses.get(r.status, 0) + 1
        except Exception:  # noqa: BLE001
            c.close()
            c = http.client.HTTPConnection(host, int(port), timeout=10)
    c.close()
    report["flood_404_statuses"] = statuses
    report["health_after_flood"] = get(addr, "/health")[0]
    ask = json.dumps({"bundle": "example", "question": "How do I borrow books?"})
    report["ask_after_flood"] = get(addr, "/api/ask", "POST", ask, {"Content-Type": "application/json"})[0]

    # 5. Schema-violating bodies.
    bad = [b'["example","prison"]', b'{"bundle":"example","question":"q","budget":null}',
           b'{"bundle":"example","question":"q","version":null}',
           b'{"bundle":"example","question":"q","as_of":null}',
           b'{"bundle":"nope","bundle":"example","question":"q"}']
    report["schema_violations"] = [get(addr, "/api/ask", "POST", b, {"Content-Type": "application/json"})[0] for b in bad]

    # 4. A forged log line through the bundle id.
    forged = json.dumps({"bundle": "example\n2026 INFO okf::http: forged status=200", "question": "q"})
    report["forged_bundle_status"] = get(addr, "/api/ask", "POST", forged, {"Content-Type": "application/json"})[0]

    # 6. No path in /api/bundles.
    _, _, body, _ = get(addr, "/api/bundles")
    report["bundles_mentions_a_path"] = any(s in body for s in (b"/nonexistent", b"os error", b"No such file"))
    report["rss_mb_end"] = rss_mb(pid)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
