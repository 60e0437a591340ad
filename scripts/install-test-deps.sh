#!/usr/bin/env bash
# Installs what `make test` needs beyond Go itself. Idempotent.
# Go modules (which `go test` would fetch anyway) and the npm MCP servers
# of internal/mcptest/npm; later suites add their packages here (Debian
# packages).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v go >/dev/null || { echo "install-test-deps: Go is required (https://go.dev/dl/)" >&2; exit 1; }
go mod download
(cd sdk && go mod download)

# curl plays the browser in the OAuth end-to-end test (it follows the
# authorization server's redirect to coyote's callback).
if ! command -v curl >/dev/null; then
	if command -v apt-get >/dev/null; then
		sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get install -y --no-install-recommends curl >/dev/null
	else
		echo "install-test-deps: curl is required for the OAuth test" >&2
		exit 1
	fi
fi

# The real MCP servers of the MCP bridge's tests and benchmarks, pinned in
# internal/mcptest/npm. Offline with node_modules already in place (and
# matching the lock), there is nothing to do.
npmdir=internal/mcptest/npm
if ! command -v npm >/dev/null; then
	echo "install-test-deps: Node.js and npm are required for the MCP tests (https://nodejs.org/)" >&2
	exit 1
fi
if [ -f "$npmdir/node_modules/.package-lock.json" ] && cmp -s "$npmdir/package-lock.json" "$npmdir/.installed-lock" 2>/dev/null; then
	: # installed from this very lock
elif [ -f "$npmdir/package-lock.json" ]; then
	(cd "$npmdir" && npm ci --no-audit --no-fund --loglevel=error) && cp "$npmdir/package-lock.json" "$npmdir/.installed-lock"
else
	(cd "$npmdir" && npm install --no-audit --no-fund --loglevel=error) && cp "$npmdir/package-lock.json" "$npmdir/.installed-lock"
fi
