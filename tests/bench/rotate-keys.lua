-- wrk script: every request presents the next API key from keys.txt (one per line), so a benchmark can run
-- through the full host path (auth, rate limit, plugin) without any single key reaching its limit.
local keys = {}
local counter = 0

function init(args)
  for line in io.lines(args[1]) do
    keys[#keys + 1] = line
  end
  counter = math.random(1, #keys)
end

function request()
  counter = counter % #keys + 1
  return wrk.format("GET", nil, { ["X-API-Key"] = keys[counter] })
end
