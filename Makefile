# The README's two commands. Both bootstrap first (idempotent).
VENV ?= .venv
PY := $(VENV)/bin/python
# --dist loadgroup: modules marked xdist_group (a module fixture that builds a
# wheelhouse or runs the demo) stay on one worker; every other test load-balances.
PYTEST_ARGS ?= -n auto --dist loadgroup
# make test runs one representative point of each costly sweep (marker `sweep`);
# make test-full runs every point and reliability/ at its sample depth.
TEST_SELECT ?= -m "not sweep"
VAULT ?= demo-vault

.PHONY: bootstrap bytecode test test-full reliability soak lint imports demo bench bench-startup clean

bootstrap:
	@bash tools/bootstrap.sh

# The suite spawns thousands of console scripts. With PYTHONDONTWRITEBYTECODE set
# (as in our CI image) none of them can cache our modules' bytecode, so each one
# compiled every module it imported. Compiled here once (only what changed) and
# read by all (a clean clone's make test: 5 min 24-26 s with it, 5 min 27 s-6 min
# without; within run-to-run noise, but no process compiles what another did).
bytecode: bootstrap
	@$(PY) -m compileall -q -j 0 contracts/src packages/*/src testkit/src

test: bytecode
	$(VENV)/bin/ruff check .
	$(PY) tools/check_imports.py
	$(PY) -m pytest $(PYTEST_ARGS) $(TEST_SELECT)

test-full: bytecode
	$(VENV)/bin/ruff check .
	$(PY) tools/check_imports.py
	RVAULT_RELIABILITY=sample $(PY) -m pytest $(PYTEST_ARGS)

# make test runs reliability/ quick (RVAULT_RELIABILITY=quick: every install point
# of each writer killed once, one signal each). The deeper tiers: make reliability
# (sample), make soak; CI's reliability workflow runs make test-full on every push
# to main and make soak nightly; see docs/reliability.md.
reliability: bytecode
	RVAULT_RELIABILITY=sample $(PY) -m pytest reliability $(PYTEST_ARGS)

soak: bytecode
	RVAULT_SOAK=1 $(PY) -m pytest reliability $(PYTEST_ARGS)

lint: bootstrap
	$(VENV)/bin/ruff check .

imports: bootstrap
	$(PY) tools/check_imports.py

demo: bytecode
	$(PY) tools/demo.py --vault $(VAULT)

bench: bootstrap
	$(PY) tools/bench.py

bench-startup: bytecode
	$(PY) tools/bench_startup.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
