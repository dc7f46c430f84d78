# The README's two commands. Both bootstrap first (idempotent).
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?= -n auto
VAULT ?= demo-vault

.PHONY: bootstrap test lint imports demo bench clean

bootstrap:
	@bash tools/bootstrap.sh

test: bootstrap
	$(VENV)/bin/ruff check .
	$(PY) tools/check_imports.py
	$(PY) -m pytest $(PYTEST_ARGS)

lint: bootstrap
	$(VENV)/bin/ruff check .

imports: bootstrap
	$(PY) tools/check_imports.py

demo: bootstrap
	$(PY) tools/demo.py --vault $(VAULT)

bench: bootstrap
	$(PY) tools/bench.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
