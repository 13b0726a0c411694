-- wrk script for bench/wrk_load.py: POST one JSON-RPC request again and again, check every reply,
-- and print one machine-readable line at the end.
--
--   wrk -t1 -cN -dS -s bench/wrk/mcp.lua URL -- SPEC.lua
--
-- SPEC.lua (written by bench/wrk_load.py) returns a table:
--   method    "POST" (default) or "GET" (no body: prefix and suffix are ignored)
--   path      the request path
--   headers   name -> value, sent with every request (Host included)
--   prefix, suffix   the body is prefix .. id .. suffix, a fresh JSON-RPC id per request
--   sessions  Mcp-Session-Id values, used round-robin (empty: no session header)
--   expect    substrings every reply body must contain
--   reject    substrings no reply body may contain
-- A reply that is not HTTP 200 or fails a substring check counts as `bad`; the first such body is printed.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

local spec, method, path, headers, prefix, suffix, sessions, nsessions, expect, reject
local counter = 0
bad = 0
checked = 0
first_bad = ""

function init(args)
  spec = dofile(args[1])
  method, path, prefix, suffix = spec.method or "POST", spec.path, spec.prefix, spec.suffix
  headers = {}
  for name, value in pairs(spec.headers) do headers[name] = value end
  sessions = spec.sessions or {}
  nsessions = #sessions
  expect = spec.expect or {}
  reject = spec.reject or {}
end

function request()
  counter = counter + 1
  if nsessions > 0 then
    headers["Mcp-Session-Id"] = sessions[(counter % nsessions) + 1]
  end
  if method == "GET" then return wrk.format("GET", path, headers, nil) end
  return wrk.format("POST", path, headers, prefix .. counter .. suffix)
end

local function fail(status, body)
  bad = bad + 1
  if first_bad == "" then
    first_bad = tostring(status) .. " " .. string.gsub(string.sub(body or "", 1, 400), "[\r\n]", " ")
  end
end

function response(status, _, body)
  checked = checked + 1
  if status ~= 200 then return fail(status, body) end
  for i = 1, #expect do
    if not string.find(body, expect[i], 1, true) then return fail(status, body) end
  end
  for i = 1, #reject do
    if string.find(body, reject[i], 1, true) then return fail(status, body) end
  end
end

function done(summary, latency, _)
  local nbad, nchecked, sample = 0, 0, ""
  for _, thread in ipairs(threads) do
    nbad = nbad + thread:get("bad")
    nchecked = nchecked + thread:get("checked")
    if sample == "" then sample = thread:get("first_bad") end
  end
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,' ..
    '"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"mean_us":%.1f,"max_us":%d,"bad":%d,"checked":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max,
    nbad, nchecked))
  if sample ~= "" then io.write("WRKBAD " .. sample .. "\n") end
end
