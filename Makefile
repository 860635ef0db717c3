# Two entry points: `make run` (set up, then serve) and `make test` (set up, then check everything).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint lock image container-tools postgres-tools clients generate-go bench clean golden mutate \
	clean-compiled

# One virtual environment, filled in two steps from the lock files (requirements/, versions and hashes, made from
# pyproject.toml by `make lock`): what running needs (`make run`), then the development tools (`make test`).
# The project itself is installed editable, without dependencies, by the locked setuptools.
RUNTIME_LOCK := requirements/runtime.lock
DEV_LOCK := requirements/dev.lock
COMPILE_LOCK := requirements/compile.lock
RUNTIME := $(VENV)/.runtime
DEV := $(VENV)/.dev

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(RUNTIME): $(RUNTIME_LOCK) pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r $(RUNTIME_LOCK)
	PYTHONWARNINGS=ignore $(BIN)/pip install --quiet --no-deps --no-build-isolation -e .  # no setuptools banner about editable installs
	touch $@

$(DEV): $(RUNTIME) $(DEV_LOCK)
	$(BIN)/pip install --quiet --require-hashes -r $(DEV_LOCK)
	touch $@

# The engine compiled with mypyc (docs/development.md), in place beside its sources (the editable install loads
# it): every module of engine/ but those [tool.mazziere.compiled] in pyproject.toml keeps interpreted, by mypyc from
# the compile lock. Built again after any change to engine/; until then the engine runs pure (engine/_loader.py).
# If it does not compile, `make run` goes on with the pure engine and tests/core/test_compiled.py fails.
COMPILER := $(VENV)/.compiler
COMPILED := $(VENV)/.compiled

$(COMPILER): $(RUNTIME) $(COMPILE_LOCK)
	$(BIN)/pip install --quiet --require-hashes -r $(COMPILE_LOCK)
	touch $@

$(COMPILED): $(COMPILER) setup.py pyproject.toml $(shell find engine -name '*.py' -not -path 'engine/rl/*')
	find engine -name '*.so' -delete
	@mkdir -p build; echo "mypyc: compiling the engine (about a minute)"
	@if MAZZIERE_COMPILE=1 $(BIN)/python setup.py --quiet build_ext --inplace > build/mypyc.log 2>&1; then touch $@; \
	else cat build/mypyc.log; echo "make: the engine did not compile (above, build/mypyc.log): it runs pure"; fi

setup: $(COMPILED)
run: $(COMPILED)
clean: clean-compiled

clean-compiled:
	find engine -name '*.so' -delete
	rm -f $(COMPILED)

# Rewrite the lock files after a change to the dependencies in pyproject.toml, with the pinned uv; versions already
# locked stay unless LOCK_FLAGS=--upgrade (or --upgrade-package NAME). tests/deploy/test_lock.py checks they agree.
UV_VERSION := 0.13.9
LOCK_FLAGS ?=
UV_COMPILE = $(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes --quiet \
	--custom-compile-command 'make lock' $(LOCK_FLAGS)

# The runtime lock holds the server's dependencies and the code generator (the group codegen), which `make run` and
# the image's build need before the server starts, though the server's package does not depend on it.
lock: | $(BIN)/python
	$(BIN)/pip install --quiet uv==$(UV_VERSION)
	$(UV_COMPILE) --group pyproject.toml:codegen -o $(RUNTIME_LOCK)
	$(subst pyproject.toml,--group pyproject.toml:compile,$(UV_COMPILE)) -c $(RUNTIME_LOCK) -o $(COMPILE_LOCK)
	$(UV_COMPILE) --group pyproject.toml:codegen --extra dev -c $(RUNTIME_LOCK) -c $(COMPILE_LOCK) -o $(DEV_LOCK)

GEN := services/gen/.generated
BUF := node_modules/.bin/buf

# Python code from the protobuf contract (grpcio-tools, the runtime lock's codegen group); not kept in git.
$(GEN): $(RUNTIME) $(wildcard protos/mazziere/v1/*.proto) services/codegen.py
	$(BIN)/python services/codegen.py
	touch $@

# The buf CLI (lint and breaking-change checks of the contract), Redocly CLI and Spectral (lints of the REST
# gateway's OpenAPI document, in tests/gateway/test_openapi.py), pinned in package.json.
$(BUF): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# kustomize renders deploy/k8s for tests/deploy: pinned, built from its Go module into the virtual environment.
KUSTOMIZE_VERSION := v5.8.1
KUSTOMIZE := $(BIN)/.kustomize-$(KUSTOMIZE_VERSION)

$(KUSTOMIZE): | $(BIN)/python
	@command -v go > /dev/null || { echo "make: Go is needed to build kustomize $(KUSTOMIZE_VERSION) for tests/deploy"; exit 1; }
	GOBIN=$(CURDIR)/$(BIN) GOTOOLCHAIN=local GOFLAGS=-mod=mod go install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)
	touch $@

# kube-score scores the rendered overlays in tests/deploy (no CRITICAL finding): pinned, built the same way.
KUBE_SCORE_VERSION := v1.20.0
KUBE_SCORE := $(BIN)/.kube-score-$(KUBE_SCORE_VERSION)

$(KUBE_SCORE): | $(BIN)/python
	@command -v go > /dev/null || { echo "make: Go is needed to build kube-score $(KUBE_SCORE_VERSION) for tests/deploy"; exit 1; }
	GOBIN=$(CURDIR)/$(BIN) GOTOOLCHAIN=local GOFLAGS=-mod=mod go install github.com/zegl/kube-score/cmd/kube-score@$(KUBE_SCORE_VERSION)
	touch $@

# helm lints and renders deploy/helm/mazziere for tests/deploy/test_helm.py (its render with the production image
# settings must be the production overlay's objects): pinned, built the same way. helm's own release build sets the
# Kubernetes version it assumes without a cluster (`helm template`, `helm lint`) from its client-go through ldflags;
# `go install` alone leaves 1.20, which the chart's kubeVersion refuses. HELM_KUBE_VERSION is that of helm's
# client-go (k8s.io/client-go v0.37.0 in helm v3.22.0's go.mod: Kubernetes 1.37), as helm's Makefile computes it.
HELM_VERSION := v3.22.0
HELM_KUBE_MAJOR := 1
HELM_KUBE_MINOR := 37
HELM_LDFLAGS := -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
	$(foreach package,pkg/chartutil pkg/lint/rules,\
	-X helm.sh/helm/v3/$(package).k8sVersionMajor=$(HELM_KUBE_MAJOR) \
	-X helm.sh/helm/v3/$(package).k8sVersionMinor=$(HELM_KUBE_MINOR))
HELM := $(BIN)/.helm-$(HELM_VERSION)-kube$(HELM_KUBE_MAJOR).$(HELM_KUBE_MINOR)

$(HELM): | $(BIN)/python
	@command -v go > /dev/null || { echo "make: Go is needed to build helm $(HELM_VERSION) for tests/deploy"; exit 1; }
	GOBIN=$(CURDIR)/$(BIN) GOTOOLCHAIN=local GOFLAGS=-mod=mod go install -ldflags '$(HELM_LDFLAGS)' \
		helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
	touch $@

# connectconformance, the official Connect conformance suite, runs in server mode against the Connect and gRPC-Web
# layer in tests/connect_conformance (its protos ship in the same module): pinned, built the same way.
CONNECT_CONFORMANCE_VERSION := v1.0.7
CONNECT_CONFORMANCE := $(BIN)/.connectconformance-$(CONNECT_CONFORMANCE_VERSION)

$(CONNECT_CONFORMANCE): | $(BIN)/python
	@command -v go > /dev/null || { echo "make: Go is needed to build connectconformance $(CONNECT_CONFORMANCE_VERSION) for tests/connect_conformance"; exit 1; }
	GOBIN=$(CURDIR)/$(BIN) GOTOOLCHAIN=local GOFLAGS=-mod=mod go install connectrpc.com/conformance/cmd/connectconformance@$(CONNECT_CONFORMANCE_VERSION)
	touch $@

# The generated clients (clients/README.md): TypeScript (npm ci, buf generate with the pinned protoc-gen-es, tsc;
# not kept in git) and Go (protoc-gen-go and protoc-gen-go-grpc built from clients/go/tools/go.mod; its code is in git).
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

# The Go plugins, built from the versions pinned in clients/go/tools/go.mod (a module of their own, so that they
# never enter the module graph of a program that requires the client). The Go code they make is kept in git
# (`go get` fetches it from the repository): `make generate-go` rewrites it after a change to the protos, and
# tests/clients/test_generated_code.py regenerates it into a temporary folder and fails on any difference.
$(GO_CLIENT)/.bin/.installed: $(GO_CLIENT)/tools/go.mod $(GO_CLIENT)/tools/go.sum
	@command -v go > /dev/null || { echo "make: Go is needed to build the Go client's protoc plugins"; exit 1; }
	cd $(GO_CLIENT)/tools && GOBIN=$(CURDIR)/$(GO_CLIENT)/.bin GOTOOLCHAIN=local go install tool
	touch $@

generate-go: $(BUF) $(GO_CLIENT)/.bin/.installed
	cd $(GO_CLIENT) && $(CURDIR)/$(BUF) generate

clients: $(TS_CLIENT)/dist/.built $(GO_CLIENT)/.bin/.installed

setup: $(DEV) $(GEN)

# On 127.0.0.1 unless MAZZIERE_HOST / MAZZIERE_REST_HOST say otherwise (`mazziere serve` and the image: every address).
run: $(RUNTIME) $(GEN)
	MAZZIERE_HOST=$${MAZZIERE_HOST:-127.0.0.1} MAZZIERE_REST_HOST=$${MAZZIERE_REST_HOST:-127.0.0.1} \
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
	MYPYPATH=$(PY_CLIENT)/build/lib $(BIN)/mypy $(PY_CLIENT)/example.py $(wildcard $(PY_CLIENT)/tests/*.py)

# The container test (tests/deploy/test_container.py) builds deploy/Dockerfile with podman and plays through the
# image. As root with apt, podman, runc and debootstrap are installed here; where the registry's base image cannot
# be pulled, the test makes a local one with deploy/base-image.sh (cached by a hash of its recipe). CONTAINER_TEST=0
# skips the install and the test.
CONTAINER_TEST ?= 1
CONTAINER_PACKAGES := podman runc debootstrap

container-tools:
	@if [ "$(CONTAINER_TEST)" = 0 ]; then echo "make: CONTAINER_TEST=0: tests/deploy/test_container.py skipped"; \
	elif { command -v podman && command -v runc && command -v debootstrap; } > /dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null; then \
		echo "apt-get install $(CONTAINER_PACKAGES)"; apt-get update -qq \
		&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(CONTAINER_PACKAGES) > /dev/null; \
	else echo "make: $(CONTAINER_PACKAGES) are not all installed (root with apt installs them)"; fi

# The store tests (tests/host/test_store.py) run PostgreSQL on a private cluster of their own, started from Debian's
# binaries (/usr/lib/postgresql/*/bin) as the postgres user. As root with apt, the postgresql package is installed
# here; where it cannot be, `make test` fails those tests (MAZZIERE_REQUIRE_POSTGRES=1) and says how to get it; a
# pytest run of its own skips them.
postgres-tools:
	@if ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null; then \
		echo "apt-get install postgresql"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql > /dev/null; } \
			|| echo "make: apt-get could not install postgresql: the PostgreSQL store tests will fail"; \
	else echo "make: PostgreSQL is not installed, and apt-get is not available as root:" \
		"the PostgreSQL store tests will fail"; fi

test: postgres-tools
test: $(HELM)

# The monitoring tests (tests/deploy/test_monitoring.py) check deploy/monitoring's alert rules with promtool (`check
# rules`, `test rules`), from Debian's prometheus package. As root with apt it is installed here, without its
# recommends (no exporters); where it cannot be, those tests are skipped and say how to get it.
.PHONY: prometheus-tools

prometheus-tools:
	@if command -v promtool > /dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null; then \
		echo "apt-get install prometheus"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			prometheus > /dev/null; } || echo "make: apt-get could not install prometheus: the promtool tests will be skipped"; \
	else echo "make: promtool is not installed, and apt-get is not available as root:" \
		"the promtool tests will be skipped"; fi

test: prometheus-tools

# One pytest run over every test, long ones included (pytest -m long: seeded matches, minutes of one core; they start
# first), on TEST_WORKERS processes (pytest-xdist, a test file to a process: most tests wait on servers, browsers and
# timers, so there are more processes than cores). REQUIRE_ROLLING_DEPLOY=1: the rolling-deploy tests fail, rather
# than skip, without PostgreSQL, Chromium or the web table's build (docs/testing.md).
TEST_WORKERS ?= 4

test: lint $(KUSTOMIZE) $(KUBE_SCORE) $(CONNECT_CONFORMANCE) clients container-tools
	REQUIRE_ROLLING_DEPLOY=1 MAZZIERE_CONTAINER_TEST=$(CONTAINER_TEST) MAZZIERE_REQUIRE_POSTGRES=1 \
		$(BIN)/pytest -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile

# The image with podman, as the container test builds it, on BASE_IMAGE and NODE_IMAGE (default: deploy/base-image.sh's
# Debian ones, for Python and for the web table's Node build stage).
IMAGE ?= localhost/mazziere:dev
BASE_IMAGE ?=
NODE_IMAGE ?=

image: container-tools
	base="$(BASE_IMAGE)"; [ -n "$$base" ] || base=$$(deploy/base-image.sh); \
	node="$(NODE_IMAGE)"; [ -n "$$node" ] || node=$$(deploy/base-image.sh node); \
	podman build --runtime runc --isolation=chroot -f deploy/Dockerfile --build-arg PYTHON_IMAGE="$$base" \
		--build-arg NODE_IMAGE="$$node" -t $(IMAGE) .

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
# mutmut copies engine/ as it is: the compiled modules go first, so that the mutated .py files are what runs.
mutate: clean-compiled

# The Colyseus room server bench.host_load measures beside the host (bench/colyseus: @colyseus/core, ws-transport and
# sdk, pinned in its package-lock.json); `make bench` installs them, and `make test` too, so bench.host_load's smoke
# test measures both sides. Without npm, or if they do not install, `make bench` runs the host alone and says why.
COLYSEUS_BENCH := bench/colyseus/node_modules/.installed

.PHONY: colyseus-bench

$(COLYSEUS_BENCH): bench/colyseus/package.json bench/colyseus/package-lock.json
	cd bench/colyseus && npm ci --no-audit --no-fund --loglevel=error
	touch $@

colyseus-bench:
	@if command -v npm > /dev/null; then \
		$(MAKE) --no-print-directory $(COLYSEUS_BENCH) || echo "make: the Colyseus packages did not install (above):" \
			"bench.host_load measures the host alone"; \
	else echo "make: npm is not installed: bench.host_load measures the host alone (install Node.js 20 or later)"; fi

test: $(COLYSEUS_BENCH)

# Then the server's package at the newest versions of its dependencies (tests/deploy/test_package.py).
bench: setup colyseus-bench
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench
	MAZZIERE_PACKAGE_NEWEST=1 $(BIN)/pytest -p no:cacheprovider -m long -s -k newest tests/deploy/test_package.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache mutants
	rm -rf $(TS_CLIENT)/node_modules $(TS_CLIENT)/gen $(TS_CLIENT)/dist $(GO_CLIENT)/.bin bench/colyseus/node_modules
	rm -rf $(PY_CLIENT)/build $(PY_CLIENT)/src/mazziere_client.egg-info

# -- The web table (clients/web, served at /play; clients/web/README.md) ------------------------------------------
# npm ci, the TypeScript messages and service descriptors of protos/ (buf generate with the buf CLI above and the
# protoc-gen-es pinned in clients/web/package.json; into src/gen, not kept in git), then tsc (strict) and esbuild.
# `make run` builds it when Node is present; `make test` builds it and installs Debian's chromium for tests/web, and
# the colour emoji font the reactions' emoji are drawn with in the screenshots (tests/web/visual), not as boxes.
WEB := clients/web
WEB_BUILT := $(WEB)/dist/.built
CHROMIUM := /usr/bin/chromium
EMOJI_FONT := /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf

.PHONY: web web-if-node chromium clean-web

$(WEB)/node_modules/.installed: $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(WEB_BUILT): $(BUF) $(WEB)/node_modules/.installed $(WEB)/buf.gen.yaml $(WEB)/tsconfig.json \
		$(wildcard protos/mazziere/v1/*.proto $(TS_CLIENT)/proto/google/rpc/*.proto $(WEB)/src/*.* $(WEB)/src/i18n/*.ts) \
		$(TS_CLIENT)/verify.ts
	cd $(WEB) && npm run --silent generate && npm run --silent build
	touch $@

web: $(WEB_BUILT)

web-if-node:
	@if command -v npm > /dev/null; then \
		$(MAKE) --no-print-directory web || echo "make: the web table did not build (see above); /play is not served"; \
	else echo "make: Node.js is not installed, so the web table is not built and /play is not served;" \
		"install Node.js 20 or later (with npm) and run make web, then make run"; fi

chromium:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null; then \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
			|| echo "make: apt-get could not install chromium: tests/web will be skipped"; \
	else echo "make: no $(CHROMIUM), and apt-get is not available as root: tests/web will be skipped"; fi
	@if [ -f $(EMOJI_FONT) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null; then \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-color-emoji; } \
			|| echo "make: apt-get could not install fonts-noto-color-emoji: the screenshot tests will be skipped"; \
	else echo "make: no $(EMOJI_FONT), and apt-get is not available as root: the screenshot tests will be skipped"; fi

run: web-if-node
test: web chromium
clean: clean-web

clean-web:
	rm -rf $(WEB)/node_modules $(WEB)/dist $(WEB)/src/gen $(WEB)/openapi.json
