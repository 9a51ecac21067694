-- wrk script: POST the JSON body in env BODY to the path in env PATHNAME, with the headers
-- an MCP client or browser-less API client sends. No `response` callback: with one, wrk
-- copies every response body into a Lua string, and for the 489 KB DWP package that costs wrk
-- more than the server (BENCHMARKS.md, "The DWP /api/ask dip was the load generator's");
-- wrk counts non-2xx responses itself.
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.path = os.getenv("PATHNAME")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
done = function(summary, latency, requests)
  io.write(string.format("non_200 %d\n", summary.errors.status))
end
