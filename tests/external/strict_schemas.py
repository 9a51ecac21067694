#!/usr/bin/env python3
"""Every tool schema a running `okf serve` lists is strict as served.

Usage: strict_schemas.py MCP_URL

Lists the tools twice (a 2025-11-25 request, and a 2026-07-28 request declaring MCP Apps, which
adds the app-only tools) and, for every input schema:
- checks the strict rules directly: every object closed with every property in `required`,
  optional ones as `anyOf` with `{"type": "null"}`, one type name per `type`, no `null` in an
  `enum`, no keyword outside OpenAI's strict subset that Gemini also takes;
- converts it with the OpenAI Agents SDK's strict converter (`ensure_strict_json_schema`) and
  requires the result to equal the schema as served (nothing for a converter to change, so
  LangChain.js and the Vercel AI SDK, which pass schemas through unchanged, send the same);
- converts it with pydantic-ai's OpenAI strict transformer, which must find it strict
  compatible and leave it unchanged, and with its Gemini transformer, which must keep every
  property and the `required` list.
Exit 0 only if every check held; prints one line per check and a count.
"""
import copy
import json
import sys
import urllib.request

from agents.strict_schema import ensure_strict_json_schema
from pydantic_ai.profiles.google import GoogleJsonSchemaTransformer
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "enum", "anyOf",
            "description", "pattern", "minimum", "maximum", "minItems", "maxItems"}
UI = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}


def check(failures, name, ok, detail=""):
    if ok:
        print(f"ok   {name}")
    else:
        failures.append(name)
        print(f"FAIL {name}: {str(detail)[:600]}")


def list_tools(url, modern):
    params = {}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if modern:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": UI,
            "io.modelcontextprotocol/clientInfo": {"name": "strict", "version": "1"},
        }
        headers.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
    else:
        headers["MCP-Protocol-Version"] = "2025-11-25"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}).encode()
    request = urllib.request.Request(url, data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["result"]["tools"]


def violations(schema, at, out):
    if not isinstance(schema, dict):
        out.append(f"{at}: not a schema object")
        return
    out.extend(f"{at}: keyword {k}" for k in schema if k not in KEYWORDS)
    kind = schema.get("type")
    if not isinstance(kind, str) and "anyOf" not in schema:
        out.append(f"{at}: type {kind!r}")
    if None in schema.get("enum", []):
        out.append(f"{at}: null in an enum")
    for i, member in enumerate(schema.get("anyOf", [])):
        violations(member, f"{at}/anyOf/{i}", out)
    if kind == "object":
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            out.append(f"{at}: not closed")
        if sorted(schema.get("required", [])) != sorted(properties):
            out.append(f"{at}: required {schema.get('required')} is not every property")
        for name, child in properties.items():
            violations(child, f"{at}/properties/{name}", out)
    if "items" in schema:
        violations(schema["items"], f"{at}/items", out)


def main():
    url = sys.argv[1]
    failures = []
    tools = {t["name"]: t for t in list_tools(url, False)}
    tools.update({t["name"]: t for t in list_tools(url, True)})
    check(failures, f"{len(tools)} tools listed, app-only ones included", len(tools) >= 10, sorted(tools))
    for name, tool in sorted(tools.items()):
        schema = tool["inputSchema"]
        found = []
        violations(schema, name, found)
        check(failures, f"{name}: strict rules hold as served", not found, found)
        converted = ensure_strict_json_schema(copy.deepcopy(schema))
        check(failures, f"{name}: the Agents SDK strict converter changes nothing", converted == schema, json.dumps(converted)[:400])
        openai = OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=True)
        walked = openai.walk()
        check(failures, f"{name}: pydantic-ai finds it strict compatible", openai.is_strict_compatible)
        check(failures, f"{name}: pydantic-ai's strict transformer changes nothing", walked == schema, json.dumps(walked)[:400])
        gemini = GoogleJsonSchemaTransformer(copy.deepcopy(schema)).walk()
        check(failures, f"{name}: pydantic-ai's Gemini transformer keeps every property and required",
              sorted(gemini.get("properties", {})) == sorted(schema.get("properties", {})) and sorted(gemini.get("required", [])) == sorted(schema.get("required", [])),
              json.dumps(gemini)[:400])
    print(f"checks failed: {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
