#!/usr/bin/env python3
"""An external MCP client (the official Python SDK, `mcp` on PyPI) against a running `okf serve`.

Usage: mcp_python_client.py MCP_URL API_URL

For each protocol era the SDK offers ("legacy" initialize, "2026-07-28" stateless, "auto"), it
lists the tools, calls ask_okf on the example bundle (then search and fetch), and checks that structuredContent equals
the package POST /api/ask returns for the same input and that the text block is the package's
evidence brief (what POST /api/ask answers with Accept: text/markdown). It lists the prompts and
gets answer_from_package, whose message is the same brief. Then it checks that invalid
arguments give a tool error and no package. Exit 0 only if every check held; prints one line
per check.
"""
import asyncio
import json
import sys
import urllib.request

from mcp import Client

QUESTION = "How do I borrow books?"


def api_ask(api_url, accept="application/json"):
    body = json.dumps({"bundle": "example", "question": QUESTION}).encode()
    req = urllib.request.Request(api_url, data=body, headers={"Content-Type": "application/json", "Accept": accept})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.read().decode()


async def run(mode, mcp_url, expected_text, expected_brief, failures):
    async with Client(mcp_url, mode=mode) as client:
        tools = await client.list_tools()
        names = [t.name for t in tools.tools]
        check(failures, f"{mode}: tools listed", names == ["ask_okf", "okf_get_context", "okf_explain_context", "ask_okf_manifest", "read_okf_evidence", "search", "fetch", "okf_check_answer"], names)
        ask = next(t for t in tools.tools if t.name == "ask_okf")
        annotations = ask.annotations
        read_only = getattr(annotations, "read_only_hint", getattr(annotations, "readOnlyHint", None))
        check(failures, f"{mode}: ask_okf is read-only", read_only is True, annotations)
        result = await client.call_tool("ask_okf", {"bundle": "example", "question": QUESTION})
        structured = getattr(result, "structured_content", None)
        if structured is None:
            structured = getattr(result, "structuredContent", None)
        is_error = getattr(result, "is_error", getattr(result, "isError", None))
        check(failures, f"{mode}: ask_okf succeeded", is_error is False, is_error)
        check(failures, f"{mode}: structuredContent equals /api/ask", structured == json.loads(expected_text), "differs")
        text = result.content[0].text
        check(failures, f"{mode}: text block is the package's evidence brief", text == expected_brief, text[:200])
        prompts = await client.list_prompts()
        check(failures, f"{mode}: prompts listed", [p.name for p in prompts.prompts] == ["answer_from_package"], prompts)
        prompt = await client.get_prompt("answer_from_package", {"bundle": "example", "question": QUESTION})
        message = prompt.messages[0]
        check(failures, f"{mode}: the prompt's message is the brief", message.role == "user" and message.content.text == expected_brief, message.content.text[:200])
        package = json.loads(expected_text)
        found = await client.call_tool("search", {"query": QUESTION})
        results = json.loads(found.content[0].text)["results"]
        check(failures, f"{mode}: search lists the package, then its records", [r["id"] for r in results] == [package["context_id"] + "#package"] + [f"{package['context_id']}#record-{i}" for i in range(1, len(package["selected"]) + 1)], results)
        doc = json.loads((await client.call_tool("fetch", {"id": results[1]["id"]})).content[0].text)
        check(failures, f"{mode}: fetch returns the record text exactly", doc["text"] == package["selected"][0]["record"]["text"], doc.get("id"))
        bad = await client.call_tool("ask_okf", {"bundle": "https://evil.example/x", "question": QUESTION})
        bad_error = getattr(bad, "is_error", getattr(bad, "isError", None))
        bad_structured = getattr(bad, "structured_content", getattr(bad, "structuredContent", None))
        check(failures, f"{mode}: invalid arguments give a tool error", bad_error is True and bad_structured is None, bad)
        print(f"{mode}: negotiated protocol {client.protocol_version}")


def check(failures, name, ok, detail):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f" ({detail})"))
    if not ok:
        failures.append(name)


async def main():
    mcp_url, api_url = sys.argv[1], sys.argv[2]
    expected = api_ask(api_url)
    brief = api_ask(api_url, accept="text/markdown")
    failures = []
    for mode in ("legacy", "2026-07-28", "auto"):
        try:
            await run(mode, mcp_url, expected, brief, failures)
        except Exception as exc:  # a failure of the whole mode is a failed check, not a crash
            check(failures, f"{mode}: session completed", False, repr(exc))
    print(f"checks failed: {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
