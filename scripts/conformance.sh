#!/usr/bin/env bash
# Official MCP conformance suite (transport + lifecycle scenarios) against one running endpoint.
#
#   scripts/conformance.sh http://127.0.0.1:8765/demo/mcp
#
# Starts nothing: point it at a running server, e.g. the two-tool demo server of the tests:
#   .venv/bin/python -m tests.conftest_mcp --port 8765 &
# Needs npx and the npm registry. The suite packages need node >= 22 (they import `globSync`
# from fs); npx fetches node 22 as the npm package `node@22`, so the system node may be older.
# Exit status: 0 when every check passed or is on the allow-list below, 1 otherwise.
#
# Results against proxy/mcp_http.py (tests/conftest_mcp.py demo endpoint), 2026-11-30:
#   stable 0.1.16         server-initialize 1/1, ping 1/1, tools-list 1/1,
#                         dns-rebinding-protection 2/2, server-sse-multiple-streams 1/1   (all pass)
#   alpha 0.2.0-alpha.12  server-initialize 3/3, server-session-lifecycle 3/3, ping 2/2, tools-list 3/3,
#                         dns-rebinding-protection 2/2, server-sse-multiple-streams 1/1,
#                         http-header-validation 14/14, http-custom-header-server-validation 10/10
#                         (all pass);
#                         server-stateless 21 pass + 4 fail, caching 4 pass + 3 fail (+1 skipped): those
#                         failures are allow-listed below because they cannot pass without the suite's fixtures:
#     - server-stateless: 4 checks need diagnostic tools (`test_missing_capability`,
#       `test_streaming_elicitation`, `test_logging_tool`) that a BesluitBron connector does not have;
#       the suite itself reports them as "not testable".
#     - caching: prompts/list, resources/list and resources/templates/list hints; we serve tools only
#       (those methods answer -32601, as they must). tools/list hints pass.
#   Not run: server-sse-polling (SSE resumability; we answer JSON, so it checks nothing: 0/0),
#   every scenario about tool fixtures (test_simple_text, ...), prompts, resources, sampling, elicitation,
#   logging, tasks, input-required: features a read-only tools server does not offer.
set -euo pipefail

url=${1:?usage: $0 URL   (e.g. http://127.0.0.1:8765/demo/mcp), or $0 --resolve}
stable=@modelcontextprotocol/conformance@0.1.16
alpha=@modelcontextprotocol/conformance@0.2.0-alpha.12
node=node@22

stable_scenarios=(server-initialize ping tools-list dns-rebinding-protection server-sse-multiple-streams)
alpha_scenarios=(
  server-initialize server-session-lifecycle server-stateless http-header-validation
  http-custom-header-server-validation tools-list ping dns-rebinding-protection server-sse-multiple-streams caching
)
# scenario:check-id pairs that may fail, with the reason in the header above.
allowed_failures=(
  server-stateless:sep-2575-server-rejects-undeclared-capability
  server-stateless:sep-2575-missing-capability-http-400
  server-stateless:sep-2575-http-server-no-independent-requests-on-stream
  server-stateless:sep-2575-server-no-log-without-loglevel
  caching:sep-2549-prompts-list-caching-hints
  caching:sep-2549-resources-list-caching-hints
  caching:sep-2549-resources-templates-list-caching-hints
)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0

# Judge one scenario by its checks.json (the suite's exit status cannot express the allow-list).
judge() {
  local label=$1 scenario=$2 dir=$3
  python3 - "$label" "$scenario" "$dir" "${allowed_failures[@]}" <<'PY'
import glob, json, sys

label, scenario, directory, *allowed = sys.argv[1:]
allowed = {pair.split(":", 1)[1] for pair in allowed if pair.split(":", 1)[0] == scenario}
files = glob.glob(f"{directory}/**/checks.json", recursive=True)
if not files:
    print(f"FAIL  {label} {scenario}: the suite wrote no results (crashed? see its output above)")
    sys.exit(1)
checks = [check for path in files for check in json.load(open(path))]
bad = [c for c in checks if c["status"] == "FAILURE" and c["id"] not in allowed]
passed = sum(c["status"] == "SUCCESS" for c in checks)
tolerated = sum(c["status"] == "FAILURE" and c["id"] in allowed for c in checks)
other = len(checks) - passed - tolerated - len(bad)  # INFO / WARNING / SKIPPED entries
summary = f"{passed} passed, {len(bad)} failed, {tolerated} allow-listed, {other} info/warning/skipped"
if bad:
    print(f"FAIL  {label} {scenario}: {summary}")
    for check in bad:
        print(f"        {check['id']}: {check.get('errorMessage') or check.get('description')}")
    sys.exit(1)
print(f"ok    {label} {scenario}: {summary}")
PY
}

# The folder of a package's commands (node 22's among them), fetched by npx once: each scenario then starts the
# suite directly, not npx again (a second per scenario, 45 scenarios in `make conformance`).
bin_dir() {
  npx -y -p "$node" -p "$1" -- sh -c 'dirname "$(command -v conformance)"'
}

run() {
  local label=$1 bin=$2 scenario=$3
  local dir="$out/$label-$scenario"
  # The suite exits 1 on any failed check; judge() decides instead.
  PATH="$bin:$PATH" conformance server --url "$url" --scenario "$scenario" -o "$dir" >"$dir.log" 2>&1 || true
  if ! judge "$label" "$scenario" "$dir"; then
    failed=1
    sed 's/\x1b\[[0-9;]*m//g' "$dir.log" | grep -vE '^npm (warn|notice)' | tail -n 25 | sed 's/^/        | /'
  fi
}

# CONFORMANCE_SKIP: space-separated scenarios that do not apply to this endpoint (said by the caller).
skip=" ${CONFORMANCE_SKIP:-} "
# `--resolve` prints both folders; conformance-run.sh fetches them once for its three endpoints and hands them down.
stable_bin=${CONFORMANCE_STABLE_BIN:-$(bin_dir "$stable")}
alpha_bin=${CONFORMANCE_ALPHA_BIN:-$(bin_dir "$alpha")}
if [[ $url == --resolve ]]; then
  echo "$stable_bin $alpha_bin"
  exit 0
fi
for scenario in "${stable_scenarios[@]}"; do
  [[ $skip == *" $scenario "* ]] || run stable "$stable_bin" "$scenario"
done
for scenario in "${alpha_scenarios[@]}"; do
  [[ $skip == *" $scenario "* ]] || run alpha "$alpha_bin" "$scenario"
done

if ((failed)); then
  echo "conformance: FAILED against $url"
else
  echo "conformance: all scenarios pass against $url"
fi
exit "$failed"
