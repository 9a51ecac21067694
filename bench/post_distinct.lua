-- wrk script: as post.lua, but every request asks a different question, so that nothing is
-- reused between requests: the marker @N@ in env BODY becomes "<thread>-<request number>".
local counter = 0
local threads = 0
-- Runs in the main state; sets the global thread_id in each thread's own state.
setup = function(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end
request = function()
  counter = counter + 1
  local body = string.gsub(os.getenv("BODY"), "@N@", (thread_id or 0) .. "-" .. counter)
  return wrk.format("POST", os.getenv("PATHNAME"), {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2025-11-25",
  }, body)
end
done = function(summary, latency, requests)
  io.write(string.format("non_200 %d\n", summary.errors.status))
end
