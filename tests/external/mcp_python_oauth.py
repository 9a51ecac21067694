#!/usr/bin/env python3
"""The official Python MCP SDK completing the MCP authorization flow against `okf serve`.

Usage: mcp_python_oauth.py MCP_URL ISSUER CLIENT_ID CLIENT_SECRET SCOPE QUESTION

With the SDK's client-credentials provider (a 401 naming the resource metadata, discovery of
the authorization server, a token for this resource), it lists the tools and calls ask_okf on
the restricted bundle `okf-dwp`. Prints one line per check; exit 0 only if every check held.
"""
import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client


class MemoryStorage:
    """Token and client storage for one run."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


async def run(url, issuer, client_id, secret, scope, question, failures):
    provider = ClientCredentialsOAuthProvider(
        server_url=url,
        storage=MemoryStorage(),
        client_id=client_id,
        client_secret=secret,
        scope=scope,
        issuer=issuer,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            tools = await client.list_tools()
            ask = next(t for t in tools.tools if t.name == "ask_okf")
            schema = ask.input_schema if hasattr(ask, "input_schema") else ask.inputSchema
            check(failures, "listed tools name okf-dwp", "okf-dwp" in schema["properties"]["bundle"]["enum"], schema["properties"]["bundle"])
            result = await client.call_tool("ask_okf", {"bundle": "okf-dwp", "question": question})
            structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None) or {}
            check(failures, "ask_okf on okf-dwp is sufficient", structured.get("evidence_status") == "sufficient", json.dumps(structured)[:300])


def check(failures, name, ok, detail):
    if ok:
        print(f"ok: {name}")
    else:
        print(f"FAILED: {name}: {detail}")
        failures.append(name)


def main():
    url, issuer, client_id, secret, scope, question = sys.argv[1:7]
    failures = []
    asyncio.run(run(url, issuer, client_id, secret, scope, question, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
