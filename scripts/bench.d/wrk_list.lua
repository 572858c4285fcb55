-- wrk script for scripts/bench: cycles over the request paths in the file given after `--`,
-- each thread starting at a different offset, and prints one machine-readable line at the end.
local paths = {}
local next_index = 1
local thread_count = 0

-- Runs in the main Lua state once per thread: number them, so each starts at its own offset.
function setup(thread)
    thread_count = thread_count + 1
    thread:set("thread_id", thread_count)
end

function init(args)
    for line in io.lines(args[1]) do
        paths[#paths + 1] = line
    end
    if #paths == 0 then
        error("wrk_list.lua: no paths in " .. tostring(args[1]))
    end
    -- Spread threads over the list so that two threads do not request the same file in lockstep.
    local id = thread_id or 1
    next_index = math.floor((id - 1) * #paths / 8) % #paths + 1
end

function request()
    local path = paths[next_index]
    next_index = next_index % #paths + 1
    return wrk.format("GET", path)
end

function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format(
        "WRK_RESULT requests=%d duration_us=%d bytes=%d errors=%d status_errors=%d p50_us=%d p99_us=%d\n",
        summary.requests, summary.duration, summary.bytes,
        e.connect + e.read + e.write + e.timeout, e.status,
        latency:percentile(50), latency:percentile(99)))
end
