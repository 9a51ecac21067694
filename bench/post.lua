-- wrk script: POST the JSON body in env BODY to the path in env PATHNAME, with the headers
-- an MCP client or browser-less API client sends.
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.path = os.getenv("PATHNAME")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
local failures = 0
response = function(status, headers, body)
  if status ~= 200 then failures = failures + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("non_200 %d\n", summary.errors.status))
end
