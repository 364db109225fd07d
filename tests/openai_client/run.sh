#!/usr/bin/env bash
# run.sh POEM_SERVER: OpenAI's own Node client (client_test.mjs) against a
# poem_server started here on a free port, stopped at the end. ctest's
# openai_client. Exits 77 (ctest: skipped), saying why, without Node or the client;
# scripts/install_deps.sh --client installs both.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
server="${1:?usage: run.sh path/to/poem_server}"
if ! command -v node >/dev/null; then
  echo "skipped: Node is not installed (scripts/install_deps.sh --client installs it and the client)"
  exit 77
fi
if [[ ! -d "$here/node_modules/openai" ]]; then
  echo "skipped: the openai client is not installed (scripts/install_deps.sh --client)"
  exit 77
fi
log="$(mktemp)"
"$server" --port 0 >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "$log"' EXIT
port=""
for _ in $(seq 200); do  # its first line names the address, e.g. http://127.0.0.1:40213/
  port="$(grep -o ':[0-9][0-9]*/' "$log" | head -1 | tr -d ':/' || true)"
  [[ -n "$port" ]] && break
  sleep 0.1
done
if [[ -z "$port" ]]; then
  echo "poem_server did not start:"
  cat "$log"
  exit 1
fi
node "$here/client_test.mjs" "http://127.0.0.1:$port/v1"
