# Two entry points: `make run` (set up, then serve) and `make test` (set up, then check everything).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

GEN := services/gen/.generated
BUF := node_modules/.bin/buf

# Python code from the protobuf contract (grpcio-tools, installed above); not kept in git.
$(GEN): $(BIN)/.installed $(wildcard protos/mazziere/v1/*.proto) services/codegen.py
	$(BIN)/python -m services.codegen
	touch $@

# The buf CLI (lint and breaking-change checks of the contract), pinned in package.json.
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
	$(BIN)/mypy

test: lint $(KUSTOMIZE)
	$(BIN)/pytest

bench: setup
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
