# Two entry points: `make run` (set up, then serve) and `make test` (set up, then check everything).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint clients generate-go bench clean golden mutate

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

GEN := services/gen/.generated
BUF := node_modules/.bin/buf

# Python code from the protobuf contract (grpcio-tools, installed above); not kept in git.
$(GEN): $(BIN)/.installed $(wildcard protos/mazziere/v1/*.proto) services/codegen.py
	$(BIN)/python services/codegen.py
	touch $@

# The buf CLI (lint and breaking-change checks of the contract) and Redocly CLI (lint of the REST gateway's
# OpenAPI document, in tests/gateway/test_openapi.py), pinned in package.json.
$(BUF): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# kustomize renders deploy/k8s for tests/deploy: pinned, built from its Go module into the virtual environment.
KUSTOMIZE_VERSION := v5.8.1
KUSTOMIZE := $(BIN)/.kustomize-$(KUSTOMIZE_VERSION)

$(KUSTOMIZE): | $(BIN)/.installed
	@command -v go > /dev/null || { echo "make: Go is needed to build kustomize $(KUSTOMIZE_VERSION) for tests/deploy"; exit 1; }
	GOBIN=$(CURDIR)/$(BIN) GOTOOLCHAIN=local GOFLAGS=-mod=mod go install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)
	touch $@

# The generated clients (clients/README.md): TypeScript (npm ci, buf generate with the pinned protoc-gen-es, tsc;
# not kept in git) and Go (protoc-gen-go and protoc-gen-go-grpc built from clients/go/go.mod; its code is in git).
TS_CLIENT := clients/typescript
GO_CLIENT := clients/go
# The Python client (clients/python) is a distribution of its own, `pip install clients/python`, whose build
# generates its stubs; `make lint` builds it in place (build/lib) to type-check its helper against them.
PY_CLIENT := clients/python

$(TS_CLIENT)/node_modules/.installed: $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(TS_CLIENT)/dist/.built: $(TS_CLIENT)/node_modules/.installed $(TS_CLIENT)/buf.gen.yaml $(TS_CLIENT)/tsconfig.json \
		$(wildcard protos/mazziere/v1/*.proto $(TS_CLIENT)/proto/google/rpc/*.proto $(TS_CLIENT)/*.ts $(TS_CLIENT)/test/*.ts)
	cd $(TS_CLIENT) && npm run --silent generate && npm run --silent build
	touch $@

# The Go plugins, built from the versions pinned in clients/go/go.mod. The Go code they make is kept in git
# (`go get` fetches it from the repository): `make generate-go` rewrites it after a change to the protos, and
# tests/clients/test_generated_code.py regenerates it into a temporary folder and fails on any difference.
$(GO_CLIENT)/.bin/.installed: $(GO_CLIENT)/go.mod $(GO_CLIENT)/go.sum
	@command -v go > /dev/null || { echo "make: Go is needed to build the Go client's protoc plugins"; exit 1; }
	cd $(GO_CLIENT) && GOBIN=$(CURDIR)/$(GO_CLIENT)/.bin GOTOOLCHAIN=local go install tool
	touch $@

generate-go: $(BUF) $(GO_CLIENT)/.bin/.installed
	cd $(GO_CLIENT) && $(CURDIR)/$(BUF) generate

clients: $(TS_CLIENT)/dist/.built $(GO_CLIENT)/.bin/.installed

setup: $(BIN)/.installed $(GEN)

run: setup
	$(BIN)/mazziere serve

lint: setup $(BUF)
	$(BUF) lint
	@if git cat-file -e HEAD~1:buf.yaml 2>/dev/null; then \
		echo "buf breaking --against .git#ref=HEAD~1"; $(BUF) breaking --against '.git#ref=HEAD~1'; \
	else echo "buf breaking: no previous commit with protos; skipped"; fi
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	mkdir -p build/typecheck/mazziere
	ln -sfn ../../../engine build/typecheck/mazziere/engine
	ln -sfn ../../../services build/typecheck/mazziere/services
	$(BIN)/mypy
	cd $(PY_CLIENT) && $(CURDIR)/$(BIN)/python setup.py --quiet build_py
	MYPYPATH=$(PY_CLIENT)/build/lib $(BIN)/mypy -p mazziere_client
	MYPYPATH=$(PY_CLIENT)/build/lib $(BIN)/mypy $(PY_CLIENT)/example.py $(PY_CLIENT)/tests/hand.py

test: lint $(KUSTOMIZE) clients
	$(BIN)/pytest

# Rewrite the golden playthroughs (tests/golden/*.txt) after a change meant to alter what players see; review the diff.
golden: setup
	$(BIN)/python -m tests.golden --update

# Mutation testing (docs/testing.md): mutmut, pinned in the `mutation` extra, over engine/ against the fast rule
# tests ([tool.mutmut] in pyproject.toml), then the score per module. Slow: MUTANTS narrows it to some functions,
# e.g. make mutate MUTANTS='engine.games.sette_e_mezzo.*'; MUTATE_JOBS sets the parallel children. Not in `make test`.
MUTATE_JOBS ?= 2
MUTANTS ?=

mutate: setup
	$(BIN)/pip install --quiet -e '.[mutation]'
	$(BIN)/mutmut run --max-children $(MUTATE_JOBS) $(MUTANTS)
	$(BIN)/python -m tests.mutation

bench: setup
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache mutants
	rm -rf $(TS_CLIENT)/node_modules $(TS_CLIENT)/gen $(TS_CLIENT)/dist $(GO_CLIENT)/.bin
	rm -rf $(PY_CLIENT)/build $(PY_CLIENT)/src/mazziere_client.egg-info
