-- wrk script for tests/bench/soak.sh: every request takes the next path of a mixed query set and the next API
-- key (so no key reaches its per-minute limit), and, given a rate, requests are sent on a fixed schedule instead
-- of "as fast as possible". done() prints the summary as one JSON line for the script to read.
--   wrk ... -s soak.lua URL -- keys.txt paths.txt [requests per second for each wrk thread]
--
-- The schedule is per wrk thread (each has its own Lua state): request n is due at start + n / rate. When a
-- connection comes free, delay() hands it the next due slot and waits until then. A fixed pause after each answer
-- (the first version of this script) made the rate fall with latency: at 30 ms p50 under load the soak ran at half
-- its target. Slots missed because every connection was busy are not all sent at once afterwards: the schedule
-- never lags the clock by more than one second, so a stall is a dip in the rate rather than a burst after it.
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } soak_timespec;
  int clock_gettime(int clock_id, soak_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local timespec = ffi.new("soak_timespec")
local function now_ms()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
  return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

local keys, paths = {}, {}
local k, p = 0, 0
local interval_ms, next_due = nil, nil
local MAX_LAG_MS = 1000

function init(args)
  for line in io.lines(args[1]) do keys[#keys + 1] = line end
  for line in io.lines(args[2]) do paths[#paths + 1] = line end
  k = math.random(1, #keys)
  p = math.random(1, #paths)
  if args[3] then interval_ms = 1000 / tonumber(args[3]) end
end

function request()
  k = k % #keys + 1
  p = p % #paths + 1
  return wrk.format("GET", paths[p], { ["X-API-Key"] = keys[k] })
end

function delay()
  if not interval_ms then return 0 end
  local now = now_ms()
  if not next_due or next_due < now - MAX_LAG_MS then next_due = now end
  local due = next_due
  next_due = next_due + interval_ms
  -- wrk takes whole milliseconds; the schedule itself keeps the fractions.
  return math.max(0, math.floor(due - now))
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"non2xx":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))
end
