# Two entry points, each doing its own set-up on a fresh machine:
#   make validate   validate the shipped fixtures (the valid ones pass, the invalid ones show their issues); it
#                   installs the package and its runtime dependencies only, not the development tools
#   make test       lint, type-check, check generated files and run the whole test suite
# and the inner loop while working, in under a minute:
#   make check      ruff, mypy, the generated files and the tests not marked slow or interop (tests/conftest.py TIERS)
# and after an edit of a schema or the kind table (docs/extending.md):
#   make generate   run every generator in order (tools/regenerate.py)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: validate test check generate fuzz bench clean

# The released AgentCompass writer and reader serve the interoperability tests. Only its results modules are
# used, which need the few packages named here (msgspec for its result browser, viewer/reader.py); it goes to a
# folder of its own so that the venv stays consistent.
# Each step says what it does first: on a fresh machine they take minutes, and pip lists what it collects.
$(STAMP): pyproject.toml
	@echo "== make: a virtual environment in $(VENV)"
	$(PYTHON) -m venv $(VENV)
	@echo "== make: the package and its development tools (pip, a minute or more on a fresh machine)"
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar off -e '.[dev]'
	@echo "== make: AgentCompass 1.0.1 and its results modules' packages, for the interoperability tests"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --ignore-requires-python \
	  --upgrade --target $(VENV)/interop agentcompass==1.0.1
	$(BIN)/python -m pip install --quiet --disable-pip-version-check rich pydantic pyyaml filelock tabulate httpx \
	  msgspec
	touch $(STAMP)

# What validating needs, and nothing more: the package (editable, with its native reader where a compiler is) and
# its runtime dependencies. An edited native source or build file installs it again.
RUNTIME := $(VENV)/.runtime
$(RUNTIME): pyproject.toml setup.py src/agentbeats_spec/reading/_native.c src/agentbeats_spec/rules/_actf_native.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $(RUNTIME)

# The editable install builds the native reader; an edited reader source is built again before anything uses it.
NATIVE := $(VENV)/.native
$(NATIVE): $(STAMP) src/agentbeats_spec/reading/_native.c setup.py
	@echo "== make: the native reader, built by an editable install"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(NATIVE)

# The valid run's collected artifact carries its collector's sha256, which holds its permission bits (0644 in git),
# as AgentCompass 1.0.1's reuse measures them: a checkout under another umask gets them back here.
validate: $(RUNTIME)
	@find fixtures/valid -path '*/artifacts/*' -type f -exec chmod 0644 {} +
	$(BIN)/agentbeats-spec validate fixtures/valid
	@echo
	@echo "The invalid fixtures must fail, each with the issues listed in fixtures/expected-issues.json:"
	@$(BIN)/agentbeats-spec validate --no-context fixtures/invalid; status=$$?; \
	  if [ $$status -ne 1 ]; then echo "expected exit status 1, got $$status"; exit 1; fi

# Ajv (Node.js) checks that the schemas work outside Python: see tests/interop/test_ajv.py.
AJV := tests/node/node_modules/.package-lock.json
$(AJV): tests/node/package.json tests/node/package-lock.json
	@echo "== make: Ajv and the SARIF Multitool for the tests (npm ci --prefix tests/node)"
	npm ci --prefix tests/node --silent --no-audit --no-fund

# The npm package (js/): its pinned Ajv compiles the standalone validators, its TypeScript checks the types.
JSPKG := js/node_modules/.package-lock.json
$(JSPKG): js/package.json js/package-lock.json
	@echo "== make: the npm package's Ajv and TypeScript (npm ci --prefix js)"
	npm ci --prefix js --silent --no-audit --no-fund

test: $(NATIVE) $(AJV) $(JSPKG)
	$(BIN)/ruff check src tests tools benchmarks fuzz setup.py
	$(BIN)/ruff format --check src tests tools benchmarks fuzz setup.py
	$(BIN)/mypy src
	$(BIN)/lint-imports
	$(BIN)/python tools/regenerate.py --check
	$(MAKE) --no-print-directory fuzz
	@echo "== make: the whole test suite (pytest; its 15 slowest tests listed at the end)"
	$(BIN)/python -m pytest --durations=15

check: $(NATIVE) $(JSPKG)
	$(BIN)/ruff check src tests tools benchmarks fuzz setup.py
	$(BIN)/mypy src
	$(BIN)/python tools/regenerate.py --check
	$(BIN)/python -m pytest -m "not slow and not interop"

# Every generated file from its one home (the schemas, the kind table, the code table); the npm package's
# validators need its pinned Ajv.
generate: $(NATIVE) $(JSPKG)
	$(BIN)/python tools/regenerate.py

# The native reader under libFuzzer with AddressSanitizer and UBSan, differential against the exact reader
# (fuzz/run.py). clang comes from the distribution when missing and the user is root (CI runs as root on a fresh
# Debian machine); anyone else without clang is told so and the step is skipped.
FUZZ_SECONDS ?= 45
fuzz: $(NATIVE)
	@if ! command -v clang >/dev/null && [ "$$(id -u)" -ne 0 ]; then \
	  echo "clang not found and cannot be installed without root: skipping the fuzz step (install clang to run it)"; \
	  exit 0; \
	fi; \
	command -v clang >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-dev >/dev/null || \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null; } || exit 1; \
	echo "nice -n 10 $(BIN)/python fuzz/run.py --seconds $(FUZZ_SECONDS)"; \
	nice -n 10 $(BIN)/python fuzz/run.py --seconds $(FUZZ_SECONDS)

# Issue 37's measures in interleaved rounds of one run (minutes; the trees are generated once in /tmp): the floor,
# ours, Ajv (tests/node), export and watch; BENCH_FLAGS="--all" adds the older tables of docs/performance.md.
bench: $(NATIVE) $(AJV)
	nice -n 10 $(BIN)/python benchmarks/suite.py $(BENCH_FLAGS)

clean:
	rm -rf $(VENV) dist build .pytest_cache .mypy_cache .ruff_cache .hypothesis
