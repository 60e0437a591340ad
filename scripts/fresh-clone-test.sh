#!/usr/bin/env bash
# Checks that a clone with nothing beside it passes the tests that read the
# original's config corpus (../shared/compat): they must skip, not fail,
# when it is absent. CI sets CI, which makes those tests fail instead; here
# it is unset, as on a developer's machine.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone --quiet --no-hardlinks . "$tmp/coyote"
# Uncommitted work (changed and new files) is part of what is checked
# when this is run by hand.
git diff HEAD --binary | (cd "$tmp/coyote" && git apply --allow-empty)
git ls-files -z --others --exclude-standard | xargs -0r cp --parents -t "$tmp/coyote"

# The npm packages the end-to-end tests run (MCP servers, the ACP client)
# are not what this checks: the clone uses the ones installed here.
for lock in $(git ls-files '*package-lock.json'); do
	d=$(dirname "$lock")
	[ -d "$d/node_modules" ] && ln -s "$PWD/$d/node_modules" "$tmp/coyote/$d/node_modules"
done

cd "$tmp/coyote"
pkgs=$(go list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... |
	awk '/github.com\/coyote-cli\/coyote\/internal\/compat/ {print $1}')
if [ -z "$pkgs" ]; then
	echo "fresh-clone-test: no package reads the compat corpus?" >&2
	exit 1
fi
out=$(env -u CI go test -count=1 -v $pkgs 2>&1) || { echo "$out" | grep -v '^=== \|^--- PASS\|^PASS\|^ok ' >&2; echo "fresh-clone-test: a clone without ../shared fails its tests" >&2; exit 1; }
skips=$(echo "$out" | grep -c 'is not beside this clone' || true)
echo "fresh-clone-test: $(echo $pkgs | wc -w) packages pass in a clone without ../shared ($skips tests skipped for the missing corpus)"
[ "$skips" -gt 0 ] || { echo "fresh-clone-test: no test skipped, so the clone still found the corpus" >&2; exit 1; }
