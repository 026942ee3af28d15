-- wrk script for tests/bench/soak.sh: every request takes the next path of a mixed query set and the next API
-- key (so no key reaches its per-minute limit), and, given a delay, each connection waits that many
-- milliseconds (a fraction is spread over requests) before each request: a steady rate instead of "as fast as
-- possible". done() prints the summary as one JSON line for the script to read.
--   wrk ... -s soak.lua URL -- keys.txt paths.txt [delay_ms]
local keys, paths = {}, {}
local k, p = 0, 0
local delay_ms, owed = nil, 0

function init(args)
  for line in io.lines(args[1]) do keys[#keys + 1] = line end
  for line in io.lines(args[2]) do paths[#paths + 1] = line end
  k = math.random(1, #keys)
  p = math.random(1, #paths)
  if args[3] then delay_ms = tonumber(args[3]) end
end

function request()
  k = k % #keys + 1
  p = p % #paths + 1
  return wrk.format("GET", paths[p], { ["X-API-Key"] = keys[k] })
end

-- wrk takes whole milliseconds; the fraction is carried to the next request.
function delay()
  if not delay_ms then return 0 end
  owed = owed + delay_ms
  local whole = math.floor(owed)
  owed = owed - whole
  return whole
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"non2xx":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))
end
