#!/usr/bin/env bash
# Runs coyote against the in-repo fake OpenAI-compatible server, with a
# throw-away config directory: no key, no network. Used by `make demo`.
set -euo pipefail
cd "$(dirname "$0")/.."

prompt="${*:-Tell me something about coyotes.}"
work=$(mktemp -d)
cleanup() {
  [ -n "${fake_pid:-}" ] && kill "$fake_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The fake server prints its base URL as its first line of output.
exec 3< <(exec ./bin/fakellm -chunks 40 -delay 25ms \
  -text "Coyotes (Canis latrans) are adaptable members of the dog family, found from Alaska to Panama. They live in deserts, prairies, forests and cities, eat almost anything, and can run at up to 65 km/h. Their howls and yips at dusk are how family groups keep in touch. (This answer came from coyote's fake demo server.)" \
  2>"$work/fake.log")
fake_pid=$!
if ! read -r -t 10 url <&3 || [ -z "$url" ]; then
  echo "demo: the fake server did not start:" >&2
  cat "$work/fake.log" >&2
  exit 1
fi

mkdir -p "$work/config"
cat >"$work/config/config.yaml" <<YAML
model: demo:fake-model
clients:
  - type: openai-compatible
    name: demo
    api_base: $url
    models:
      - name: fake-model
YAML

echo "\$ coyote \"$prompt\"   (answered by the fake server at $url)"
COYOTE_CONFIG_DIR="$work/config" COYOTE_CACHE_DIR="$work/cache" ./bin/coyote "$prompt"
