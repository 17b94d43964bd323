# The commands CI runs (.ci/run): `make check`, `make check-peers`, then `make check-specs`. Run `make check` before you push.
GO      ?= go
MODULES := . tools tools/oasdiff tools/apidiff tools/benchstat internal/testdata/consumer

.PHONY: all generate tidy check check-peers check-specs check-generated check-format check-vet check-tidy check-consumer check-actions check-ratelimit test \
	quickstart update-spec spec-diff check-spec-diff api-diff check-api-diff prism bench bench-generation check-floor vulncheck mutants

all: check

## generate: regenerate gen/ from openapi.json with the pinned oapi-codegen
generate:
	$(GO) generate ./gen

## test: go test ./..., with the race detector where cgo has a C compiler; the suites another target runs skip
## (CONTRIBUTING.md, "Which tests run where"); `go test -short ./...` is the quick loop
test:
	@if [ "$$($(GO) env CGO_ENABLED)" = 1 ] && command -v "$$($(GO) env CC)" >/dev/null; then \
		echo "$(GO) test -race -count=1 ./..."; $(GO) test -race -count=1 ./...; \
	else \
		echo "info: no C compiler for cgo, so no race detector: $(GO) test -count=1 ./..."; $(GO) test -count=1 ./...; \
	fi

## bench: run the measurements of internal/benchmarks and rewrite BENCHMARKS.md (about 25 minutes, the nginx and peer runs in real
## time; installs nginx and the peer's packages first, .ci/setup bench; fails when a goal is missed)
bench:
	GO=$(GO) ./scripts/bench.sh

## mutants: plant each one-line bug of scripts/mutants.txt (one or more per promise of the docs) in turn, run the
## tests it names (they must pass before, and fail with it) and restore the file; one line per change, then a verdict
## (2 to 4 minutes: three need the specgrowth tests; not part of make check)
mutants:
	GO=$(GO) ./scripts/mutants.sh

## bench-generation: measure make generate and go build ./... on the largest document of testdata/specs, from an empty
## build cache and a warm one (GNU time; minutes), and record the section that make bench copies into BENCHMARKS.md
bench-generation:
	TENSORPOOL_GENERATION_FIGURES=$(CURDIR)/internal/benchmarks/testdata/generation.md $(GO) test -count=1 -v -timeout 60m -run '^TestGenerationAtScale$$' ./internal/specgrowth

## quickstart: the main job, against the built-in engine whatever the environment (the API only with -live)
quickstart:
	$(GO) run ./examples/quickstart

## check: the README's test command: every check that needs only Go (and gcc for -race), git and make; each
## step runs even after one fails, and the last line is the verdict (scripts/steps.sh)
CHECKS := check-generated check-format check-vet check-tidy check-consumer check-spec-diff check-api-diff test
check:
	@MAKE='$(MAKE)' ./scripts/steps.sh check $(CHECKS)

## check-peers: the checks that need tools beyond Go (Prism from npm; shellcheck; nginx); first installs what is
## missing (.ci/setup peers: apt-get as root or with passwordless sudo, else it names the packages and stops).
## A new peer: its target in PEERS, its Debian package in .ci/setup's peers list.
PEERS := check-actions prism check-ratelimit
check-peers:
	@./.ci/setup peers
	@MAKE='$(MAKE)' ./scripts/steps.sh check-peers $(PEERS)

## check-specs: the pipeline's tests, in copies of the repository (internal/specgrowth; CI runs it): above all, on
## each real public document of testdata/specs, merged with openapi.json's operations, update-spec from the file
## (prepare, generate, the engine's load), build, vet, the engine's seed flow and the tests, with a table of each
## stage's result and time at the end; then update-spec's verdicts and report, the spec-diff and api-diff gates,
## the preparation rules, check-generated, .ci/run and .ci/setup
check-specs:
	TENSORPOOL_SPECS=1 $(GO) test -count=1 -v -timeout 60m ./internal/specgrowth

## check-floor: make check on the oldest Go that go.mod allows (GO_FLOOR, fetched through the module proxy).
## +auto lets a module whose go.mod needs a newer Go (tools/oasdiff, tools/apidiff, tools/benchstat) switch to its toolchain line; the library
## itself must build and pass on GO_FLOOR, which the first line checks.
GO_FLOOR := go1.25.14
check-floor:
	@v=$$(GOTOOLCHAIN=$(GO_FLOOR)+auto $(GO) env GOVERSION) && [ "$$v" = $(GO_FLOOR) ] || \
		{ echo >&2 "check-floor: the library would build with $$v, not $(GO_FLOOR): go.mod's go line is newer?"; exit 1; }
	@echo "check-floor: make check with GOTOOLCHAIN=$(GO_FLOOR)+auto: the library on $(GO_FLOOR)"
	GOTOOLCHAIN=$(GO_FLOOR)+auto $(MAKE) check

check-generated:
	GO='$(GO)' ./scripts/check-generated.sh

check-format:
	./scripts/check-format.sh

check-vet:
	GO='$(GO)' MODULES='$(MODULES)' ./scripts/check-vet.sh

check-tidy:
	@for m in $(MODULES); do echo "go mod tidy -diff ($$m)"; (cd $$m && $(GO) mod tidy -diff) || exit 1; done

## tidy: go mod tidy in every module (update-spec runs it: generated code may import something new)
tidy:
	@for m in $(MODULES); do (cd $$m && $(GO) mod tidy) || exit 1; done

check-consumer:
	./scripts/check-consumer.sh

# actionlint (pinned in tools/) on .github/workflows; the run: scripts through shellcheck, which must be
# installed (make check-peers installs it): without it actionlint would skip them silently.
check-actions:
	@command -v shellcheck >/dev/null || { echo >&2 "check-actions: shellcheck is not installed (apt-get install shellcheck)"; exit 1; }
	$(GO) run -modfile=tools/go.mod github.com/rhysd/actionlint/cmd/actionlint
	@echo "check-actions: actionlint and shellcheck find nothing in $$(ls .github/workflows | tr '\n' ' ')"

## check-ratelimit: wait's pace behind two real limiters on loopback, every goal met: nginx's limit_req (Debian's
## nginx, about 40 s), then a FastAPI service limited as slowapi does (Debian's python3-fastapi, -uvicorn and -limits;
## internal/benchmarks/testdata/slowapi_peer.py; about 70 s). make bench runs the full set
check-ratelimit:
	TENSORPOOL_NGINX=1 TENSORPOOL_SLOWAPI=1 $(GO) test -count=1 -run '^TestRateLimit(Nginx|Slowapi)$$' -v ./internal/benchmarks

## vulncheck: known vulnerabilities reachable from the library (needs network; CI runs it in a job of its own)
GOVULNCHECK := golang.org/x/vuln/cmd/govulncheck@v1.9.0
vulncheck:
	$(GO) run $(GOVULNCHECK) ./...

## update-spec: fetch SPEC (URL or file), report changes vs openapi.json, write it, regenerate, run SPEC_CHECKS
SPEC        ?= https://engine.tensorpool.dev/openapi.json
SPEC_CHECKS ?= check
update-spec:
	SPEC='$(SPEC)' SPEC_CHECKS='$(SPEC_CHECKS)' ./scripts/update-spec.sh

## spec-diff: changes in openapi.json since BASE (a git ref); fails on unacknowledged breaking changes
spec-diff:
	@if [ -z '$(BASE)' ]; then echo 'usage: make spec-diff BASE=<git ref>' >&2; exit 2; fi
	./scripts/spec-diff.sh '$(BASE)'

# CI: against openapi.json before the last commit that changed it.
check-spec-diff:
	./scripts/spec-diff.sh

## api-diff: Go API changes (gen, tensorpool, wait, tensorpooltest) since BASE (a git ref; default: as in CI);
## fails on unacknowledged incompatible changes (go-api.acknowledged-breaking.txt)
api-diff:
	GO='$(GO)' ./scripts/api-diff.sh $(if $(BASE),'$(BASE)')

# CI: against the latest v* tag, or before the last change of the spec, the generator configuration or gen/.
check-api-diff:
	GO='$(GO)' ./scripts/api-diff.sh

## prism: drive every operation through the generated client against Prism (pinned in tools/prism; needs npm,
## which make check-peers installs)
prism:
	./scripts/prism.sh
