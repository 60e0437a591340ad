#!/usr/bin/env bash
# Installs what `make test` needs beyond Go itself. Idempotent.
# Go modules (which `go test` would fetch anyway), the npm MCP servers of
# internal/mcptest/npm and the packages of the Node.js plugin example
# (sdk/examples/node-provider); later suites add their packages here
# (Debian packages).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v go >/dev/null || { echo "install-test-deps: Go is required (https://go.dev/dl/)" >&2; exit 1; }
go mod download
(cd sdk && go mod download)

# Debian packages: curl plays the browser in the OAuth end-to-end test (it
# follows the authorization server's redirect to coyote's callback);
# sqlite3 is what the bundled sql agent's tools run; bubblewrap (bwrap) is
# the sandbox plugin's backend that runs here for real, unprivileged;
# zsh, fish and elvish (and bash-completion, which cobra's bash script
# needs) load the --completions scripts in the completion tests.
missing=()
for cmd in curl sqlite3 bwrap zsh fish elvish; do
	pkg=$cmd; [ "$cmd" = bwrap ] && pkg=bubblewrap
	command -v "$cmd" >/dev/null || missing+=("$pkg")
done
[ -f /usr/share/bash-completion/bash_completion ] || missing+=(bash-completion)
if [ ${#missing[@]} -gt 0 ]; then
	if command -v apt-get >/dev/null; then
		sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
			{ $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
	else
		echo "install-test-deps: ${missing[*]} required by the tests; install them with your package manager" >&2
		exit 1
	fi
fi

# npm packages, each directory pinned by its package-lock.json: the real
# MCP servers of the MCP bridge's tests and benchmarks, and the gRPC
# packages of the Node.js plugin example (its end-to-end test and
# benchmark), and the Agent Client Protocol's official library, which the
# ACP client of the --acp-server tests is built on. Offline with
# node_modules already in place (and matching the lock), there is nothing to do.
if ! command -v npm >/dev/null; then
	echo "install-test-deps: Node.js and npm are required for the MCP and Node.js plugin tests (https://nodejs.org/)" >&2
	exit 1
fi
npm_install() {
	local dir=$1
	if [ -f "$dir/node_modules/.package-lock.json" ] && cmp -s "$dir/package-lock.json" "$dir/.installed-lock" 2>/dev/null; then
		: # installed from this very lock
	elif [ -f "$dir/package-lock.json" ]; then
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) && cp "$dir/package-lock.json" "$dir/.installed-lock"
	else
		(cd "$dir" && npm install --no-audit --no-fund --loglevel=error) && cp "$dir/package-lock.json" "$dir/.installed-lock"
	fi
}
npm_install internal/mcptest/npm
npm_install sdk/examples/node-provider
npm_install internal/acptest/client
