#!/usr/bin/env python3
"""Bounded delivery through the official Python MCP client (`mcp` on PyPI).

Usage: mcp_python_delivery.py MCP_URL API_URL BUNDLE QUESTION

Over `ask_okf_manifest` and `read_okf_evidence` only, it pages the whole catalogue, rebuilds the
package from `package` slices at delivery_bytes 8192 and 65536 and every selected record's text
from `record_text` slices, and checks: each result's serialised structured content is within
its delivery_bytes; every joined value hashes to its content_sha256; the rebuilt package equals
the bytes of POST /api/ask; the catalogue lists every selected record once, in package order,
and its next_offset ends at null. Exit 0 only if every check held; one line per check.
"""
import asyncio
import hashlib
import json
import sys
import urllib.request

from mcp import Client


def api_ask(api_url, bundle, question):
    body = json.dumps({"bundle": bundle, "question": question}).encode()
    req = urllib.request.Request(api_url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return resp.read().decode()


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def check(failures, name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f" ({detail})"))
    if not ok:
        failures.append(name)


def structured(result):
    value = getattr(result, "structured_content", None)
    if value is None:
        value = getattr(result, "structuredContent", None)
    return value


async def call(client, failures, name, arguments, limit):
    result = await client.call_tool(name, arguments)
    is_error = getattr(result, "is_error", getattr(result, "isError", None))
    value = structured(result)
    if is_error or value is None:
        raise RuntimeError(f"{name} failed: {result.content[0].text if result.content else result}")
    size = len(compact(value))
    if size > limit:
        check(failures, f"{name} result within delivery_bytes {limit}", False, size)
    return value


async def read_all(client, failures, base, section, record_id, limit):
    joined, offset, sha, calls = "", 0, None, 0
    while offset is not None:
        args = dict(base, section=section, offset=offset, delivery_bytes=limit)
        if record_id is not None:
            args["record_id"] = record_id
        value = await call(client, failures, "read_okf_evidence", args, limit)
        joined += value["data"]
        sha = value["content_sha256"]
        offset = value["next_offset"]
        calls += 1
    return joined, sha, calls


async def main():
    mcp_url, api_url, bundle, question = sys.argv[1:5]
    expected = api_ask(api_url, bundle, question)
    package = json.loads(expected)
    failures = []
    async with Client(mcp_url, mode="auto") as client:
        base = {"bundle": bundle, "question": question}
        ids, offset, context_id, last_next = [], 0, None, "unset"
        while True:
            args = dict(base, offset=offset, delivery_bytes=16384)
            if context_id:
                args["context_id"] = context_id
            page = await call(client, failures, "ask_okf_manifest", args, 16384)
            context_id = page["context_id"]
            ids += [r["id"] for r in page["records"]]
            last_next = page["delivery"]["next_offset"]
            if last_next is None:
                break
            offset = last_next
        selected = [s["record"]["id"] for s in package["selected"]]
        check(failures, "catalogue lists every selected record once, in package order", ids == selected, f"{len(ids)} vs {len(selected)}")
        check(failures, "catalogue next_offset ends at null", last_next is None)
        check(failures, "catalogue context_id equals /api/ask", context_id == package["context_id"])
        base["context_id"] = context_id
        for limit in (8192, 65536):
            joined, sha, calls = await read_all(client, failures, base, "package", None, limit)
            check(failures, f"package slices at {limit} ({calls} calls) rebuild /api/ask byte for byte", joined == expected)
            check(failures, f"package content_sha256 at {limit} verifies", hashlib.sha256(joined.encode()).hexdigest() == sha)
        texts_ok, hashes_ok = True, True
        for item in package["selected"]:
            record = item["record"]
            joined, sha, _ = await read_all(client, failures, base, "record_text", record["id"], 8192)
            texts_ok &= joined == record["text"]
            hashes_ok &= hashlib.sha256(joined.encode()).hexdigest() == sha
        check(failures, f"record_text slices rebuild all {len(package['selected'])} record texts", texts_ok)
        check(failures, "every record_text content_sha256 verifies", hashes_ok)
        wrong = await client.call_tool("read_okf_evidence", dict(base, context_id="urn:sha256:" + "0" * 64, section="package"))
        wrong_error = getattr(wrong, "is_error", getattr(wrong, "isError", None))
        check(failures, "a context_id the replay does not reproduce is a tool error with no data", wrong_error is True and structured(wrong) is None)
    print(f"checks failed: {len(failures)}")
    sys.exit(1 if failures else 0)


asyncio.run(main())
