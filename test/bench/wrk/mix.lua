-- wrk script of bench/wrk-load.ts: each request drawn at random from a file of requests, one per line:
-- METHOD <tab> PATH [<tab> BODY], BODY with backslash escapes (\n, \\). The summary is printed as one
-- JSON line after the marker, latencies in microseconds.
local requests = {}

function init(args)
  for line in io.lines(args[1]) do
    local method, path, body = line:match("^(%u+)\t([^\t]+)\t?(.*)$")
    if body == "" then body = nil else body = body:gsub("\\(.)", function(c) if c == "n" then return "\n" end return c end) end
    local headers = {}
    if body then headers["Content-Type"] = "text/plain" end
    requests[#requests + 1] = wrk.format(method, path, headers, body)
  end
  math.randomseed(os.time() + tonumber(tostring(requests):match("0x(%x+)") or "0", 16))
end

function request()
  return requests[math.random(#requests)]
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"status_errors":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
