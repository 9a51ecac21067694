#!/usr/bin/env python3
"""Gemini's Python hosts against a running `okf serve`: google-adk and google-genai, offline.

Usage: gemini_hosts.py MCP_URL [--workbench ID=CASE_ID] BUNDLE=QUESTION...

Every tool the server lists (2025-11-25) is loaded through google-adk's `McpToolset` and its
function declaration is built the ways Gemini hosts build it:
- ADK's default (`McpTool._get_declaration`, `parameters_json_schema` in ADK 2.13);
- ADK with JSON_SCHEMA_FOR_FUNC_DECL off (ADK_DISABLE_JSON_SCHEMA_FOR_FUNC_DECL=1), where
  `_to_gemini_schema` converts the input schema to Gemini's OpenAPI-subset `types.Schema`;
- google-genai's own MCP support (an MCP session passed as a tool), `mcp_to_gemini_tool`, which
  converts with `types.Schema.from_json_schema`.
Each must describe its tool without loss (every property, its type, nullability, enum,
description, pattern and bounds, `required`, nested objects: the same reduction as
gemini-schema.mjs) and stay inside Gemini's declaration subset. Then, for every BUNDLE=QUESTION,
an ADK agent runs with a canned model (a `BaseLlm` that never leaves the machine): it calls every
tool once with the unused optional fields null and once with them omitted, through ADK's real
MCP toolset; every call must succeed, and the declarations ADK sent the model must be the
served schemas (their descriptions fenced as ADK fences them). Exit 0 only if every check held;
prints one line per check and a count.
"""
import asyncio
import copy
import json
import logging
import sys
from typing import Any, AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.features import FeatureName
from google.adk.features._feature_registry import temporary_feature_override
from google.adk.flows.llm_flows.context._fencing import fence_schema_descriptions
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams
from google.genai import types
from google.genai._mcp_utils import mcp_to_gemini_tool

# The sibling module is imported from the tree: no bytecode cache is written beside it, so
# the test leaves the checkout as it found it.
sys.dont_write_bytecode = True
from strict_schemas import list_tools  # noqa: E402

ORDER = ["ask_okf", "okf_get_context", "okf_explain_context", "ask_okf_manifest", "read_okf_evidence",
         "search", "fetch", "okf_check_answer", "okf_workbench_case"]
# The keywords a declaration may use inside Gemini's function-declaration subset.
GEMINI_KEYWORDS = {"type", "nullable", "properties", "required", "additionalProperties", "items", "enum",
                   "anyOf", "description", "pattern", "minimum", "maximum", "minItems", "maxItems"}
SAID = ("pattern", "minimum", "maximum", "minItems", "maxItems")
WORKBENCH = {}
# A known failure of google-genai 2.34.0's MCP support (an MCP session passed as a tool):
# `_filter_to_supported_schema` treats `additionalProperties` as a schema and recurses into it,
# so the boolean `false` every strict (OpenAI) schema carries raises AttributeError before any
# conversion; upstream googleapis/python-genai issues #2393 and #2476 (open). The schemas keep
# `additionalProperties: false` (OpenAI strict mode requires it); ADK, which converts the same
# way otherwise, drops the keyword first and converts them.
GENAI_MCP_KNOWN = "'bool' object has no attribute 'items'"


def check(failures, name, ok, detail=""):
    if ok:
        print(f"ok   {name}")
    else:
        failures.append(name)
        print(f"FAIL {name}: {str(detail)[:800]}")


def is_null(schema):
    return isinstance(schema, dict) and len(schema) == 1 and str(schema.get("type", "")).lower() == "null"


def meaning(schema):
    """What `schema` says of a value, in one spelling (gemini-schema.mjs `meaning`): null said as
    `nullable`, a `type` list or an `anyOf` null member; type names in any case;
    additionalProperties left out (Gemini's `parameters` have no such keyword)."""
    if not isinstance(schema, dict):
        return {"invalid": schema}
    out = {"nullable": schema.get("nullable") is True, "descriptions": []}
    if isinstance(schema.get("description"), str):
        out["descriptions"].append(schema["description"])
    kind = schema.get("type")
    types_ = [] if kind is None else [str(t).lower() for t in (kind if isinstance(kind, list) else [kind])]
    if "null" in types_:
        out["nullable"] = True
    types_ = [t for t in types_ if t != "null"]
    if types_:
        out["type"] = "|".join(types_)
    if isinstance(schema.get("enum"), list):
        if None in schema["enum"]:
            out["nullable"] = True
        out["enum"] = [v for v in schema["enum"] if v is not None]
    for key in SAID:
        if key in schema:
            out[key] = schema[key] if key == "pattern" else float(schema[key])
    if "properties" in schema:
        out["properties"] = {n: meaning(s) for n, s in schema["properties"].items()}
        out["required"] = sorted(schema.get("required", []))
    if schema.get("items"):
        out["items"] = meaning(schema["items"])
    if isinstance(schema.get("anyOf"), list):
        members = [m for m in schema["anyOf"] if not is_null(m)]
        if len(members) < len(schema["anyOf"]):
            out["nullable"] = True
        if len(members) == 1:
            inner = meaning(members[0])
            merged = {**inner, **{k: v for k, v in out.items() if k not in ("descriptions", "nullable")}}
            merged["nullable"] = True
            merged["descriptions"] = out["descriptions"] + inner["descriptions"]
            return merged
        out["anyOf"] = [meaning(m) for m in members]
    return out


def losses(served, declared, at=""):
    """Every difference between what `served` and `declared` say."""
    out = []

    def walk(a, b, path):
        for key in sorted(set(a) | set(b)):
            if key == "properties":
                pa, pb = a.get("properties", {}), b.get("properties", {})
                for name in sorted(set(pa) | set(pb)):
                    if name not in pb:
                        out.append(f"{path}/properties/{name}: lost")
                    elif name not in pa:
                        out.append(f"{path}/properties/{name}: added")
                    else:
                        walk(pa[name], pb[name], f"{path}/properties/{name}")
            elif key == "items":
                if "items" not in a or "items" not in b:
                    out.append(f"{path}/items: {'lost' if 'items' in a else 'added'}")
                else:
                    walk(a["items"], b["items"], f"{path}/items")
            elif key == "anyOf":
                ma, mb = a.get("anyOf", []), b.get("anyOf", [])
                if len(ma) != len(mb):
                    out.append(f"{path}/anyOf: {len(ma)} members served, {len(mb)} declared")
                else:
                    for i, (x, y) in enumerate(zip(ma, mb)):
                        walk(x, y, f"{path}/anyOf/{i}")
            elif a.get(key) != b.get(key):
                out.append(f"{path}: {key} {json.dumps(a.get(key))} served, {json.dumps(b.get(key))} declared")

    walk(meaning(served), meaning(declared), at)
    return out


def outside_gemini(schema, at="", out=None):
    """Every place `schema` leaves Gemini's declaration subset."""
    out = [] if out is None else out
    if not isinstance(schema, dict):
        out.append(f"{at}: not a schema object")
        return out
    out.extend(f"{at}: keyword {k}" for k in schema if k not in GEMINI_KEYWORDS)
    if "type" in schema and not isinstance(schema["type"], str):
        out.append(f"{at}: type {schema['type']!r} is not one type name")
    if "type" not in schema and "anyOf" not in schema:
        out.append(f"{at}: no type")
    if isinstance(schema.get("enum"), list):
        if None in schema["enum"]:
            out.append(f"{at}: null in an enum")
        if str(schema.get("type")).lower() != "string" or not all(isinstance(v, str) for v in schema["enum"]):
            out.append(f"{at}: an enum of other than strings")
    for i, member in enumerate(schema.get("anyOf", [])):
        outside_gemini(member, f"{at}/anyOf/{i}", out)
    for name, child in schema.get("properties", {}).items():
        outside_gemini(child, f"{at}/properties/{name}", out)
    if "items" in schema:
        outside_gemini(schema["items"], f"{at}/items", out)
    return out


def parameters_of(declaration):
    """A FunctionDeclaration's parameters as JSON: its JSON Schema, or its `types.Schema` dumped
    as Gemini receives it (camelCase, no unset fields)."""
    if declaration.parameters_json_schema is not None:
        return "parameters_json_schema", declaration.parameters_json_schema
    if declaration.parameters is not None:
        return "parameters", declaration.parameters.model_dump(mode="json", by_alias=True, exclude_none=True)
    return "nothing", None


def check_declaration(failures, label, name, served, declaration):
    form, parameters = parameters_of(declaration)
    lost = losses(served, parameters, name) if parameters is not None else ["no parameters"]
    check(failures, f"{label}: {name} declared ({form}) without loss", not lost, lost)
    outside = outside_gemini(parameters, name) if parameters is not None else ["no parameters"]
    check(failures, f"{label}: {name} declared inside Gemini's subset", not outside, outside)
    return form


# ---- The calls an agent run makes.

def plain_arguments(name, ctx):
    """The fields each tool needs, given what earlier calls returned."""
    return {
        "ask_okf": lambda: {"bundle": ctx["bundle"], "question": ctx["question"]},
        "okf_get_context": lambda: {"context_id": ctx["context_id"]},
        "okf_explain_context": lambda: {"context_id": ctx["context_id"], "record_id": ctx["record_id"]},
        "ask_okf_manifest": lambda: {"bundle": ctx["bundle"], "question": ctx["question"], "delivery_bytes": 16384},
        "read_okf_evidence": lambda: {"bundle": ctx["bundle"], "question": ctx["question"], "context_id": ctx["context_id"],
                                      "section": "record_text", "record_id": ctx["record_id"], "delivery_bytes": 8192},
        "search": lambda: {"query": ctx["question"]},
        "fetch": lambda: {"id": ctx["first_record_result"]},
        "okf_check_answer": lambda: {"answer": {
            "schema": "okf-grounded-answer.v1", "context_id": ctx["context_id"], "evidence_status": ctx["evidence_status"],
            "claims": [{"id": "c1", "text": "A claim.", "requirement": None,
                        "citations": [{"record": ctx["record_id"], "quote": ctx["record_text"].strip()}]}]}},
        "okf_workbench_case": lambda: {"workbench": WORKBENCH["id"], "case_id": WORKBENCH["case_id"]},
    }[name]()


def null_arguments(schema, plain):
    """`plain` with every property of `schema` present, the ones it does not give null
    (recursively into the objects and arrays of objects it gives)."""
    def object_of(s):
        if not isinstance(s, dict):
            return None
        if s.get("type") == "object":
            return s
        return next((m for m in s.get("anyOf", []) if m.get("type") == "object"), None)

    def shape(s, value):
        if isinstance(value, list):
            items = (s or {}).get("items") or next((m.get("items") for m in (s or {}).get("anyOf", []) if m.get("type") == "array"), None)
            return [shape(items, v) for v in value]
        obj = object_of(s)
        return null_arguments(obj, value) if obj and obj.get("properties") and isinstance(value, dict) else value

    return {name: (None if name not in plain else shape(prop, plain[name])) for name, prop in schema.get("properties", {}).items()}


def learn(ctx, name, structured):
    if name == "ask_okf":
        assert structured["selected"], f"the question selects no records: {ctx['question']!r}"
        ctx["context_id"] = structured["context_id"]
        ctx["record_id"] = structured["selected"][0]["record"]["id"]
        ctx["record_text"] = structured["selected"][0]["record"]["text"]
        ctx["evidence_status"] = structured["evidence_status"]
    elif name == "search":
        ctx["first_record_result"] = structured["results"][1]["id"]


def result_holds(name, structured, ctx):
    """Whether a tool's structured result is the one its call asked for."""
    if name in ("ask_okf", "okf_get_context", "okf_explain_context", "ask_okf_manifest"):
        return structured.get("context_id") == ctx["context_id"]
    if name == "read_okf_evidence":
        return ctx["context_id"] in json.dumps(structured)
    if name == "search":
        return structured["results"][0]["id"] == f"{ctx['context_id']}#package"
    if name == "fetch":
        return structured["text"] == ctx["record_text"]
    if name == "okf_check_answer":
        return structured["status"]["ok"] is True
    if name == "okf_workbench_case":
        return structured["case"]["id"] == WORKBENCH["case_id"]
    return False


class Script:
    """What the canned model does: the tool calls of `plan` in turn, each with the arguments
    `make_arguments(name)` builds from what earlier results returned (`ctx`); what it saw."""

    def __init__(self, plan, make_arguments, ctx):
        self.plan, self.make_arguments, self.ctx = plan, make_arguments, ctx
        self.requests, self.results = [], []


class CannedGemini(BaseLlm):
    """A Gemini stand-in that never leaves the machine: each request records the tools it
    declares and answers with the script's next function call, then with text."""

    model: str = "gemini-2.5-flash"
    script: Any = None

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        script = self.script
        script.requests.append(copy.deepcopy(llm_request.config.tools or []))
        last = llm_request.contents[-1] if llm_request.contents else None
        for part in (last.parts or []) if last else []:
            if part.function_response:
                response = part.function_response.response or {}
                script.results.append((part.function_response.name, response))
                structured = response.get("structuredContent")
                if isinstance(structured, dict) and not response.get("isError"):
                    learn(script.ctx, part.function_response.name, structured)
        step = len(script.requests) - 1
        if step < len(script.plan):
            name = script.plan[step]
            call = types.FunctionCall(id=f"call-{step}", name=name, args=script.make_arguments(name))
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
        else:
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="done")]))


async def adk_run(mcp_url, bundle, question, schemas, expected, mode, failures):
    """One ADK agent run calling every tool once; `mode` is "null" or "omitted"."""
    ctx = {"bundle": bundle, "question": question}

    def make_arguments(name):
        plain = plain_arguments(name, ctx)
        return null_arguments(schemas[name], plain) if mode == "null" else plain

    script = Script(list(expected), make_arguments, ctx)
    model = CannedGemini(script=script)
    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url=mcp_url, timeout=60))
    try:
        agent = LlmAgent(name="okf_agent", model=model, instruction="Answer from the Ask OKF tools.", tools=[toolset])
        runner = InMemoryRunner(agent=agent, app_name="okf")
        session = await runner.session_service.create_session(app_name="okf", user_id="u")
        text = []
        async for event in runner.run_async(user_id="u", session_id=session.id,
                                            new_message=types.Content(role="user", parts=[types.Part(text=question)])):
            for part in (event.content.parts or []) if event.content else []:
                if part.text:
                    text.append(part.text)
        await runner.close()
    finally:
        await toolset.close()
    label = f"adk run {bundle} (optional fields {mode})"
    check(failures, f"{label}: the agent finished", "done" in text and len(script.requests) == len(expected) + 1, (text, len(script.requests)))
    check(failures, f"{label}: one result per tool, in order", [n for n, _ in script.results] == expected, [n for n, _ in script.results])
    for name, response in script.results:
        structured = response.get("structuredContent")
        ok = not response.get("isError") and "error" not in response and isinstance(structured, dict) and result_holds(name, structured, ctx)
        check(failures, f"{label}: {name} called and its result holds", ok, json.dumps(response)[:600])
    # What ADK sent the model: every tool, each the served schema with ADK's fenced descriptions.
    sent = [d for tool in script.requests[0] for d in (tool.function_declarations or [])]
    check(failures, f"{label}: every tool declared to the model", sorted(d.name for d in sent) == sorted(expected), [d.name for d in sent])
    if mode == "null":
        for declaration in sent:
            form, parameters = parameters_of(declaration)
            fenced = fence_schema_descriptions(schemas[declaration.name])
            lost = losses(fenced, parameters, declaration.name) if parameters is not None else ["no parameters"]
            check(failures, f"{label}: {declaration.name} sent to the model ({form}) without loss", not lost, lost)


async def declarations(mcp_url, schemas, expected, failures):
    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url=mcp_url, timeout=60))
    try:
        tools = await toolset.get_tools()
        check(failures, "adk: McpToolset lists every tool", sorted(t.name for t in tools) == sorted(expected), [t.name for t in tools])
        for tool in tools:
            served = schemas[tool.name]
            form = check_declaration(failures, "adk default", tool.name, served, tool._get_declaration())
            check(failures, f"adk default: {tool.name} passes the served schema as JSON Schema", form == "parameters_json_schema" and tool._get_declaration().parameters_json_schema == served, form)
            with temporary_feature_override(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, False):
                form = check_declaration(failures, "adk Schema", tool.name, served, tool._get_declaration())
            check(failures, f"adk Schema: {tool.name} converted to Gemini's types.Schema", form == "parameters", form)
            # google-genai's MCP support: the same listed tool, converted as a session tool is.
            # Known failure of google-genai 2.34.0 (see GENAI_MCP_KNOWN): asserted to still fail.
            try:
                converted = mcp_to_gemini_tool(tool._mcp_tool).function_declarations[0]
            except AttributeError as error:
                check(failures, f"google-genai mcp: {tool.name} still fails on additionalProperties: false (known; remove GENAI_MCP_KNOWN when fixed)",
                      GENAI_MCP_KNOWN in str(error), repr(error))
            else:
                check(failures, f"google-genai mcp: {tool.name} converts now: remove GENAI_MCP_KNOWN", False)
                check_declaration(failures, "google-genai mcp", tool.name, served, converted)
    finally:
        await toolset.close()


async def main():
    mcp_url = sys.argv[1]
    pairs = sys.argv[2:]
    if pairs[:1] == ["--workbench"]:
        WORKBENCH["id"], WORKBENCH["case_id"] = pairs[1].split("=", 1)
        pairs = pairs[2:]
    schemas = {t["name"]: t["inputSchema"] for t in list_tools(mcp_url, False)}
    expected = [n for n in ORDER if WORKBENCH or n != "okf_workbench_case"]
    failures = []
    check(failures, "the tools listed are the ones this check calls", sorted(schemas) == sorted(expected), sorted(schemas))
    runs = [("declarations", declarations(mcp_url, schemas, expected, failures))]
    for pair in pairs:
        bundle, question = pair.split("=", 1)
        for mode in ("null", "omitted"):
            runs.append((f"adk run {bundle} {mode}", adk_run(mcp_url, bundle, question, schemas, expected, mode, failures)))
    for name, run in runs:
        try:
            await run
        except Exception as error:  # a host that cannot run at all is one failed check
            check(failures, f"{name}: ran to the end", False, repr(error))
    print(f"checks failed: {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.ERROR)
    sys.exit(asyncio.run(main()))
