#!/usr/bin/env python3
"""Scripted workbench journey (one bounded session per case), as in BENCHMARKS.md.

usage: scripts/workbench-journey.py OKF_BINARY DIR/manifest.json

Per case: state, question search, evidence search, passage and provenance of the first hit,
its relationships, the graph and requirements views, and showing the graph on the page.
Prints totals: calls, reply bytes, estimated tokens, against the bytes of the whole packages.
"""
import json
import pathlib
import subprocess
import sys


def journey(case, package):
    lines = [
        {"tool": "okf_get_state", "arguments": {}},
        {"tool": "okf_search_evidence", "arguments": {"query": case["question"][:500]}},
    ]
    selected = package["selected"]
    if selected:
        label = selected[0]["record"]["label"][:500]
        lines += [
            {"tool": "okf_search_evidence", "arguments": {"query": label, "scope": "evidence", "case_id": case["id"], "limit": 1}},
            {"tool": "okf_get_evidence", "arguments": {"ref": "$2.data.items.0.ref", "section": "passage"}},
            {"tool": "okf_get_evidence", "arguments": {"ref": "$2.data.items.0.ref", "section": "provenance"}},
            {"tool": "okf_get_relationships", "arguments": {"ref": "$2.data.items.0.ref"}},
        ]
    graph = len(lines)
    lines += [
        {"tool": "okf_get_view_data", "arguments": {"view": "graph", "case_id": case["id"], "max_bytes": 32768}},
        {"tool": "okf_get_view_data", "arguments": {"view": "requirements", "case_id": case["id"]}},
        {"tool": "okf_show_view", "arguments": {"expected_revision": 0, "snapshot_id": "$0.snapshot_id", "result_id": f"${graph}.result_id"}},
    ]
    return lines


def main():
    okf, manifest_path = sys.argv[1], pathlib.Path(sys.argv[2])
    manifest = json.loads(manifest_path.read_text())
    totals = {"cases": 0, "calls": 0, "errors": 0, "reply_bytes": 0, "estimated_tokens": 0, "package_bytes": 0}
    for case in manifest["questions"]:
        text = (manifest_path.parent / case["package"]["url"]).read_text()
        lines = journey(case, json.loads(text))
        out = subprocess.run([okf, "workbench", "run", "--manifest", str(manifest_path)],
                             input="\n".join(json.dumps(l) for l in lines) + "\n",
                             capture_output=True, text=True, check=True)
        totals["cases"] += 1
        totals["package_bytes"] += len(text.encode())
        for line in out.stdout.splitlines():
            v = json.loads(line)
            totals["calls"] += 1
            if "error" in v:
                totals["errors"] += 1
                print(case["id"], v["error"], file=sys.stderr)
            else:
                totals["reply_bytes"] += v["delivery"]["bytes"]
                totals["estimated_tokens"] += v["delivery"]["estimated_tokens"]
    totals["reply_to_package_ratio"] = round(totals["reply_bytes"] / totals["package_bytes"], 4)
    print(json.dumps(totals))


if __name__ == "__main__":
    main()
