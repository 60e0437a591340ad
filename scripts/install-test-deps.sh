#!/usr/bin/env bash
# Installs what `make test` needs beyond Go itself. Idempotent.
# Today the test suite needs only Go modules, which `go test` fetches from
# the module proxy; later suites add their packages here (npm MCP servers,
# Debian packages).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v go >/dev/null || { echo "install-test-deps: Go is required (https://go.dev/dl/)" >&2; exit 1; }
go mod download
(cd sdk && go mod download)
