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
status=0
for slug in wetten allebronnen; do
  echo "== /$slug/mcp"
  CONFORMANCE_SKIP="http-custom-header-server-validation" \
    bash scripts/conformance.sh "http://127.0.0.1:$port/$slug/mcp" || status=1
done
demo_port=$((port + 2))
$py -m tests.conftest_mcp --port "$demo_port" >/dev/null 2>&1 &
demo=$!
trap 'kill $server $demo 2>/dev/null; wait $server $demo 2>/dev/null || true' EXIT
sleep 1
echo "== transport demo endpoint (x-mcp-header)"
bash scripts/conformance.sh "http://127.0.0.1:$demo_port/demo/mcp" || status=1
exit $status
