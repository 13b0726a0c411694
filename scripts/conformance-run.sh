#!/usr/bin/env bash
# `make conformance`: start the real proxy against the offline replicas, run the official MCP
# conformance suite's transport and lifecycle scenarios (scripts/conformance.sh) against a source
# connector and against Alle Bronnen, stop the proxy. Exit 1 when any scenario fails.
# Our connectors declare no `x-mcp-header` parameters, so the custom-header scenario has nothing to
# test there ("not testable"); it runs against the transport's demo endpoint instead, which has one.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
port=${CONFORMANCE_PORT:-18765}
replica_port=${CONFORMANCE_REPLICA_PORT:-18766}

$py -m proxy serve --port "$port" --replicas --replica-port "$replica_port" >/tmp/besluitbron-conformance.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  $py -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/health', timeout=1)" 2>/dev/null && break
  sleep 0.1
done
if ! kill -0 $server 2>/dev/null; then
  echo "the proxy did not start (port $port or $replica_port taken?):" >&2
  tail -5 /tmp/besluitbron-conformance.log >&2
  exit 1
fi
demo_port=$((port + 2))
$py -m tests.conftest_mcp --port "$demo_port" >/dev/null 2>&1 &
demo=$!
trap 'kill $server $demo 2>/dev/null; wait $server $demo 2>/dev/null || true' EXIT
# Each suite version fetched by npx once for all three endpoints.
read -r CONFORMANCE_STABLE_BIN CONFORMANCE_ALPHA_BIN < <(bash scripts/conformance.sh --resolve)
export CONFORMANCE_STABLE_BIN CONFORMANCE_ALPHA_BIN
# The three endpoints side by side (each suite run is mostly node starting), their reports in order.
logs=$(mktemp -d)
trap 'kill $server $demo 2>/dev/null; wait $server $demo 2>/dev/null || true; rm -rf "$logs"' EXIT
for slug in wetten allebronnen; do
  CONFORMANCE_SKIP="http-custom-header-server-validation" \
    bash scripts/conformance.sh "http://127.0.0.1:$port/$slug/mcp" >"$logs/$slug" 2>&1 &
done
sleep 1  # the demo endpoint is up by now
bash scripts/conformance.sh "http://127.0.0.1:$demo_port/demo/mcp" >"$logs/demo" 2>&1 &
status=0
for job in $(jobs -p | grep -vx -e "$server" -e "$demo"); do
  wait "$job" || status=1
done
for part in "wetten /wetten/mcp" "allebronnen /allebronnen/mcp" "demo transport demo endpoint (x-mcp-header)"; do
  echo "== ${part#* }"
  cat "$logs/${part%% *}"
done
exit $status
