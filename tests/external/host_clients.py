#!/usr/bin/env python3
"""The AI hosts' own MCP converters and clients against a running `okf serve`.

Usage: host_clients.py MCP_URL API_URL [--workbench ID=CASE_ID] BUNDLE=QUESTION...

Each BUNDLE=QUESTION pair is asked through:
- the OpenAI Agents SDK (`openai-agents`): every tool converted to a function tool with
  `convert_schemas_to_strict` on and off and invoked as the agent loop invokes it, with the
  arguments a model following the served schema sends (every field present, unused ones
  null: every schema is strict as served);
- `fastmcp`'s client, which validates each result's structuredContent against the tool's
  outputSchema, called with only the fields each tool needs (the server still reads an
  omitted optional field as absent);
- `langchain-mcp-adapters`, whose tools are converted with LangChain's strict OpenAI
  converter and invoked;
- a deep-research journey (ChatGPT's search/fetch shape): `search`, then `fetch` of every
  result and of every further part; every result has a url, every record text matches its
  hash, and the joined record texts are the package's, in package order.
The package each one sees must be the one POST /api/ask returns for the same bundle and
question. With --workbench, the server serves that workbench, so okf_workbench_case is listed
too and opened on that case by every client. Exit 0 only if every check held; prints one line per check and a count.
"""
import asyncio
import hashlib
import json
import sys
import urllib.request

import jsonschema
from agents.mcp import MCPServerStreamableHttp, MCPUtil
from agents.tool_context import ToolContext
from fastmcp import Client as FastMCPClient
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_mcp_adapters.client import MultiServerMCPClient

TOOLS = [
    "ask_okf",
    "okf_get_context",
    "okf_explain_context",
    "ask_okf_manifest",
    "read_okf_evidence",
    "search",
    "fetch",
    "okf_check_answer",
]

# The workbench and case okf_workbench_case opens (--workbench), when the server serves one.
WORKBENCH = {}

# The byte length of each package POST /api/ask returned, by context_id.
PACKAGE_BYTES = {}


def check(failures, name, ok, detail=""):
    if ok:
        print(f"ok   {name}")
    else:
        failures.append(name)
        print(f"FAIL {name}: {str(detail)[:600]}")


def api_ask(api_url, bundle, question):
    body = json.dumps({"bundle": bundle, "question": question}).encode()
    request = urllib.request.Request(api_url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def plain_arguments(bundle, question, package):
    """The fields each tool needs, and no more."""
    context_id = package["context_id"]
    return {
        "ask_okf": {"bundle": bundle, "question": question},
        "okf_get_context": {"context_id": context_id},
        "okf_explain_context": {"context_id": context_id},
        "ask_okf_manifest": {"bundle": bundle, "question": question},
        "read_okf_evidence": {"bundle": bundle, "question": question, "context_id": context_id, "section": "diagnostics"},
        "search": {"query": f"{bundle}: {question}"},
        "fetch": {"id": f"{context_id}#record-1"},
        "okf_check_answer": {"answer": answer_for(package)},
        "okf_workbench_case": {"workbench": WORKBENCH.get("id"), "case_id": WORKBENCH.get("case_id")},
    }


def answer_for(package):
    """A one-claim answer quoting the package's first selected record whole (quotes must be
    whole sentences; an answer the check reads; whether it is grounded is not the point here)."""
    record = package["selected"][0]["record"]
    return {
        "schema": "okf-grounded-answer.v1",
        "context_id": package["context_id"],
        "evidence_status": package["evidence_status"],
        "claims": [{"id": "c1", "text": "A claim.", "requirement": None,
                    "citations": [{"record": record["id"], "quote": record["text"].strip()}]}],
    }


def strict_arguments(schema, plain):
    """What a strict model must send: every property of the strict schema, unused ones null."""
    return {name: plain.get(name) for name in schema.get("properties", {})}


def is_expected(tool, value, package):
    """Whether a tool's JSON result belongs to the package (the result shape of each tool)."""
    context_id = package["context_id"]
    if tool in ("ask_okf", "okf_get_context"):
        return value == package
    if tool == "okf_explain_context":
        return value.get("context_id") == context_id
    if tool in ("ask_okf_manifest", "read_okf_evidence"):
        return value.get("context_id") == context_id
    if tool == "search":
        return value["results"][0]["id"] == f"{context_id}#package"
    if tool == "fetch":
        return value["text"] == package["selected"][0]["record"]["text"]
    if tool == "okf_workbench_case":
        return value.get("schema") == "okf-workbench-case.v1" and value["case"]["id"] == WORKBENCH["case_id"] and value["package"]["schema"] == "okf-governed-context.v1"
    if tool == "okf_check_answer":
        citation = value["claims"][0]["citations"][0]
        return value["schema"] == "okf-answer-check.v1" and value["context_id"] == context_id and citation["ok"] is True
    return False


def output_text(output):
    """The first text a tool hands the model (a string, a text item or a list of items; the
    catalogue's second item is its review-page link)."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        return output.get("text", "")
    if isinstance(output, list):
        return output_text(output[0]) if output else ""
    return getattr(output, "text", "")


def holds_evidence(tool, text, package):
    """What a host hands its model: for a package (ask_okf, okf_get_context, a workbench case),
    its evidence brief from the text block, or the structured content's JSON where the host
    reads that; any other result is its JSON, or, when too large to travel twice in one
    result, the note that says where it is (DEVIATIONS M8)."""
    if text.startswith("# Ask OKF evidence brief\n"):
        if tool in ("ask_okf", "okf_get_context"):
            return f"context_id: {package['context_id']}" in text
        return tool == "okf_workbench_case"
    try:
        return is_expected(tool, json.loads(text), package)
    except ValueError:
        size = PACKAGE_BYTES[package["context_id"]]
        return size > 400_000 and text.startswith("This result (") and "is in structuredContent" in text


async def agents_sdk(mcp_url, cases, failures):
    # Strict schemas with structured content handed to the model, then the defaults (non-strict,
    # text content), as an agent's configuration chooses.
    for strict in (True, False):
        mode = "strict" if strict else "non-strict"
        server = MCPServerStreamableHttp(params={"url": mcp_url, "timeout": 60}, name="okf", client_session_timeout_seconds=60, use_structured_content=strict)
        async with server:
            listed = await server.list_tools()
            check(failures, f"agents {mode}: tools listed", [t.name for t in listed] == TOOLS, [t.name for t in listed])
            tools = [MCPUtil.to_function_tool(t, server, strict) for t in listed]
            if strict:
                loose = [t.name for t in tools if not t.strict_json_schema]
                check(failures, "agents strict: every schema converts to strict mode", not loose, loose)
            for bundle, question, package in cases:
                plain = plain_arguments(bundle, question, package)
                for tool in tools:
                    # Every served schema lists every property as required (strict as served),
                    # and the SDK validates arguments against it in both modes: a model sends
                    # every field, unused ones null. Omitted fields go through fastmcp below.
                    arguments = strict_arguments(tool.params_json_schema, plain[tool.name])
                    if strict:
                        errors = [e.message for e in jsonschema.Draft202012Validator(tool.params_json_schema).iter_errors(arguments)]
                        check(failures, f"agents strict {bundle}: {tool.name} all-fields arguments fit its strict schema", not errors, errors)
                    text = json.dumps(arguments)
                    context = ToolContext(context=None, tool_name=tool.name, tool_call_id=f"call-{tool.name}", tool_arguments=text)
                    output = output_text(await tool.on_invoke_tool(context, text))
                    check(failures, f"agents {mode} {bundle}: {tool.name} returns its evidence for the package", holds_evidence(tool.name, output, package), output[:300])


async def fastmcp_client(mcp_url, cases, failures):
    async with FastMCPClient(mcp_url, timeout=60) as client:
        listed = await client.list_tools()
        check(failures, "fastmcp: tools listed", [t.name for t in listed] == TOOLS, [t.name for t in listed])
        # okf_explain_context returns one of two shapes (the package, or one record's
        # explanation) and declares no output schema; every other tool's result is validated.
        without = [t.name for t in listed if not t.outputSchema]
        check(failures, "fastmcp: every tool but okf_explain_context declares an output schema", without == ["okf_explain_context"], without)
        for bundle, question, package in cases:
            for tool, arguments in plain_arguments(bundle, question, package).items():
                try:
                    # fastmcp checks structuredContent against outputSchema and raises if not.
                    result = await client.call_tool(tool, arguments)
                    ok = not result.is_error and is_expected(tool, result.structured_content, package)
                    detail = result.structured_content
                except Exception as error:  # the check's failure detail
                    ok, detail = False, repr(error)
                check(failures, f"fastmcp {bundle}: {tool} passes output validation and returns its evidence", ok, detail)


async def langchain(mcp_url, cases, failures):
    client = MultiServerMCPClient({"okf": {"url": mcp_url, "transport": "streamable_http"}})
    tools = await client.get_tools()
    check(failures, "langchain: tools listed", [t.name for t in tools] == TOOLS, [t.name for t in tools])
    for tool in tools:
        converted = convert_to_openai_tool(tool, strict=True)["function"]
        check(failures, f"langchain: {tool.name} converts to a strict OpenAI tool", converted.get("strict") is True and converted["parameters"].get("additionalProperties") is False, converted)
        for bundle, question, package in cases:
            arguments = strict_arguments(converted["parameters"], plain_arguments(bundle, question, package)[tool.name])
            text = output_text(await tool.ainvoke(arguments))
            check(failures, f"langchain strict {bundle}: {tool.name} returns its evidence for the package", holds_evidence(tool.name, text, package), text[:300])


async def deep_research(mcp_url, cases, failures):
    async with MCPServerStreamableHttp(params={"url": mcp_url, "timeout": 60}, name="okf", client_session_timeout_seconds=60) as server:
        for bundle, question, package in cases:

            async def call(tool, arguments):
                result = await server.call_tool(tool, arguments)
                # The shape ChatGPT reads: one JSON text item.
                assert len(result.content) == 1 and result.content[0].type == "text", result
                return json.loads(result.content[0].text)

            results = (await call("search", {"query": f"{bundle}: {question}"}))["results"]
            expected = [f"{package['context_id']}#package"] + [f"{package['context_id']}#record-{n}" for n in range(1, len(package["selected"]) + 1)]
            check(failures, f"journey {bundle}: search lists the package then its {len(package['selected'])} records in order", [r["id"] for r in results] == expected, [r["id"] for r in results][:5])
            check(failures, f"journey {bundle}: every result has a title and a url", all(r.get("url") and r.get("title") for r in results), results[:3])
            texts, hashes_ok, urls_ok, calls = [], True, True, 0
            for result in results[1:]:
                document = await call("fetch", {"id": result["id"]})
                parts = [document["text"]]
                while document["metadata"].get("next_id"):
                    document = await call("fetch", {"id": document["metadata"]["next_id"]})
                    parts.append(document["text"])
                    calls += 1
                text = "".join(parts)
                hashes_ok &= hashlib.sha256(text.encode()).hexdigest() == document["metadata"]["text_sha256"]
                urls_ok &= bool(document.get("url"))
                texts.append(text)
            check(failures, f"journey {bundle}: every fetched record text matches its text_sha256 ({calls} further parts)", hashes_ok)
            check(failures, f"journey {bundle}: every fetched document has a url", urls_ok)
            check(failures, f"journey {bundle}: the joined record texts are the package's, in order", texts == [s["record"]["text"] for s in package["selected"]])
            summary = await call("fetch", {"id": results[0]["id"]})
            metadata = summary["metadata"]
            check(failures, f"journey {bundle}: the package result carries evidence_status, scope and limitations", metadata.get("evidence_status") == package["evidence_status"] and "scope" in metadata and "limitations" in metadata and metadata.get("ai_answer", 0) is None, metadata)


async def main():
    mcp_url, api_url = sys.argv[1], sys.argv[2]
    pairs = sys.argv[3:]
    if pairs[:1] == ["--workbench"]:
        WORKBENCH["id"], WORKBENCH["case_id"] = pairs[1].split("=", 1)
        TOOLS.append("okf_workbench_case")
        pairs = pairs[2:]
    cases = []
    for pair in pairs:
        bundle, question = pair.split("=", 1)
        body = api_ask(api_url, bundle, question)
        package = json.loads(body)
        PACKAGE_BYTES[package["context_id"]] = len(body)
        cases.append((bundle, question, package))
    failures = []
    for name, run in [("agents", agents_sdk), ("fastmcp", fastmcp_client), ("langchain", langchain), ("journey", deep_research)]:
        try:
            await run(mcp_url, cases, failures)
        except Exception as error:  # a client that cannot run at all is one failed check
            check(failures, f"{name}: ran to the end", False, repr(error))
    print(f"checks failed: {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
