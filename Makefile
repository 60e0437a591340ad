# Coyote build. `make run` and `make test` are all a new machine needs.

GO        ?= go
PREFIX    ?= /usr/local
BIN       := bin
PLUGINDIR := $(BIN)/plugins
# The commit, for --version ("coyote 0.9.0 (64f9416)"); the release
# number is kernel/buildinfo.Version.
COMMIT    ?= $(shell git describe --always --dirty --match 'no-tags-please' 2>/dev/null)

# Static, stripped binaries start fastest: no dynamic loader, fewer pages.
export CGO_ENABLED ?= 0
LDFLAGS := -s -w -X github.com/coyote-cli/coyote/kernel/buildinfo.Commit=$(COMMIT)
# grpcnotrace leaves out gRPC's request tracing (golang.org/x/net/trace,
# html/template), which nothing here uses and every start paid to set up.
GOTAGS  := grpcnotrace
GOBUILD := $(GO) build -trimpath -tags '$(GOTAGS)' -ldflags '$(LDFLAGS)'

# Every directory under plugins/ is one plugin binary:
# plugins/provider-openai -> coyote-provider-openai, plugins/mcp -> coyote-mcp.
PLUGIN_SRCS := $(sort $(dir $(wildcard plugins/*/main.go)))
PLUGIN_BINS := $(foreach d,$(PLUGIN_SRCS),$(PLUGINDIR)/coyote-$(notdir $(patsubst %/,%,$(d))))
# Plugins that serve more than one client type are also installed under the
# other names (a symlink), since a type maps to a binary by name alone.
PLUGIN_ALIASES := $(PLUGINDIR)/coyote-provider-openai-compatible $(PLUGINDIR)/coyote-provider-azure-openai

.PHONY: all build prereqs install run demo test test-deps test-go test-sdk test-thirdparty soak-rag bench proto lint clean FORCE

all: build

build: prereqs $(BIN)/coyote $(PLUGIN_BINS) $(PLUGIN_ALIASES)

# What a build needs, each missing one named in a line of its own, before
# a compiler error 40 lines down would.
prereqs:
	@command -v $(GO) >/dev/null 2>&1 || { echo "coyote: Go 1.26 or newer is required to build (https://go.dev/dl/); it is not on PATH" >&2; exit 1; }
	@cc=$$($(GO) env CC); command -v $${cc%% *} >/dev/null 2>&1 || { echo "coyote: a C compiler ($$cc) is required: the DuckDB plugin and the race detector use cgo (Debian: apt-get install gcc g++)" >&2; exit 1; }

$(BIN)/coyote: FORCE
	$(GOBUILD) -o $@ ./cmd/coyote

$(PLUGINDIR)/coyote-%: FORCE
	$(GOBUILD) -o $@ ./plugins/$*

# The DuckDB store links DuckDB's C++ library through cgo (gcc and
# libstdc++); every other binary stays static with cgo off.
$(PLUGINDIR)/coyote-rag-duckdb: FORCE
	CGO_ENABLED=1 $(GOBUILD) -o $@ ./plugins/rag-duckdb

$(PLUGINDIR)/coyote-provider-openai-compatible $(PLUGINDIR)/coyote-provider-azure-openai: $(PLUGINDIR)/coyote-provider-openai
	ln -sf coyote-provider-openai $@

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/coyote/plugins
	install -m 0755 $(BIN)/coyote $(DESTDIR)$(PREFIX)/bin/coyote
	cp -P $(PLUGINDIR)/coyote-* $(DESTDIR)$(PREFIX)/lib/coyote/plugins/

# Start coyote; pass arguments with ARGS="...".
run: build
	@./$(BIN)/coyote $(ARGS)

# Try coyote with no key and no network: a fake OpenAI-compatible server
# answers. Pass your own prompt with ARGS="...".
demo: build $(BIN)/fakellm
	@./scripts/demo.sh $(ARGS)

$(BIN)/fakellm: FORCE
	$(GOBUILD) -o $@ ./cmd/fakellm

# Every suite runs even when one before it fails, so one failure does not
# hide another; make still exits non-zero.
test: build
	@rc=0; for t in test-go test-sdk test-thirdparty; do $(MAKE) --no-print-directory $$t || rc=1; done; exit $$rc

# What the tests and benchmarks need beyond Go: the npm MCP servers
# (idempotent; it names Node.js/npm when they are missing).
test-deps:
	./scripts/install-test-deps.sh

# Tests run with the race detector, which needs cgo (gcc).
test-go: test-deps
	CGO_ENABLED=1 $(GO) test -race -count=1 ./...

test-sdk:
	cd sdk && CGO_ENABLED=1 $(GO) test -race -count=1 ./...

# e2e/thirdparty is a module of its own on the SDK alone, as a third
# party's plugins are: its provider (acme) and RAG store (jsonstore) pass
# the SDK's public conformance suites. A package whose tests went missing
# would pass silently, so each must have some.
test-thirdparty:
	cd e2e/thirdparty && CGO_ENABLED=1 $(GO) test -race -count=1 ./...
	@cd e2e/thirdparty && untested=$$($(GO) list -f '{{if not (or .TestGoFiles .XTestGoFiles)}}{{.ImportPath}} {{end}}' ./acme ./jsonstore); \
		if [ -n "$$untested" ]; then echo "e2e/thirdparty: no tests in" $$untested >&2; exit 1; fi

# Soak: kill `coyote --rag kb --rebuild-rag` at random points inside the
# rebuild, TRIALS times per store driver (duckdb, yaml), and check after
# each kill that the next question answers from the whole RAG (issue 14).
# 30 of each take about a minute here, after the binaries are built; make
# test kills 3 of each. COYOTE_RAG_KILL_SEED=<n> replays a run's kills.
TRIALS ?= 30
soak-rag:
	COYOTE_RAG_KILL_TRIALS=$(TRIALS) CGO_ENABLED=1 $(GO) test -count=1 -v -run '^TestKilledRebuildsNeverLeaveASilentlyWrongRAG$$' ./e2e

# Benchmarks: start-up, plugin launch, first byte and per-chunk cost, RAG
# indexing and queries, the MCP bridge, each against its target and the
# reference points, in one run on this machine.
bench: build test-deps
	CGO_ENABLED=1 $(GO) run ./internal/bench -bin $(BIN)

# Regenerate the protobuf code (needs protoc, protoc-gen-go v1.36.12 and
# protoc-gen-go-grpc v1.6.2; the generated code is committed).
proto:
	cd sdk && protoc -I proto \
		--go_out=. --go_opt=module=github.com/coyote-cli/coyote/sdk \
		--go-grpc_out=. --go-grpc_opt=module=github.com/coyote-cli/coyote/sdk \
		$$(find proto -name '*.proto')

lint:
	@if git grep -nE '^(<<<<<<<|>>>>>>>) ' -- ':!*node_modules*'; then echo "merge conflict markers left in the files above"; exit 1; fi
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	CGO_ENABLED=1 $(GO) vet ./...
	cd sdk && $(GO) vet ./...
	cd e2e/thirdparty && $(GO) vet ./...

clean:
	rm -rf $(BIN)

FORCE:
