-- wrk script for bench/soak.sh: each connection cycles through a mixed list of requests
-- (the page, /api/ask and MCP tools/call on both bundles), pausing SOAK_DELAY_MS between
-- requests so the soak is a steady load, not a saturation test. The requests come from the
-- file in SOAK_REQUESTS: one per line, "METHOD<TAB>PATH<TAB>BODY" (BODY may be empty).
local pause = tonumber(os.getenv("SOAK_DELAY_MS") or "20")

-- Status counts by route come from the server's own /metrics (bench/soak.sh reads them).
local n = 0
function setup(thread)
  n = n + 1
  thread:set("offset", n * 3)
end

-- Built per thread in init, once wrk.host (the Host header) is known.
local list = {}
function init(args)
  n = tonumber(offset) or 0
  for line in io.lines(os.getenv("SOAK_REQUESTS")) do
    local method, path, body = line:match("^(%u+)\t([^\t]+)\t?(.*)$")
    local headers = {}
    if method == "POST" then
      headers["Content-Type"] = "application/json"
      headers["Accept"] = "application/json, text/event-stream"
      headers["MCP-Protocol-Version"] = "2025-11-25"
    else
      body = nil
    end
    list[#list + 1] = wrk.format(method, path, headers, body)
  end
end

function request()
  n = n + 1
  return list[(n % #list) + 1]
end

function delay()
  return pause
end

function done(summary, latency, requests)
  io.write(string.format("requests %d\n", summary.requests))
  io.write(string.format("socket_errors connect=%d read=%d write=%d timeout=%d\n",
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
  io.write(string.format("non_2xx_3xx %d\n", summary.errors.status))
  io.write(string.format("latency_ms p50 %.2f p99 %.2f max %.2f\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
