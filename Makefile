# Every target creates or reuses .venv itself: a fresh clone needs nothing installed by hand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench sample-vm-perms clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,fleet]'
	@touch $(STAMP)

# Key files of sample_vm get the mode (and, as root, the owner) the VM gives them; git keeps neither.
sample-vm-perms:
	@$(BIN)/python scripts/apply_perms.py sample_vm sample_vm.perms

demo: $(STAMP) sample-vm-perms
	$(BIN)/modelcensus scan sample_vm

test: $(STAMP) sample-vm-perms
	$(BIN)/ruff check scanner tests scripts
	$(BIN)/mypy scanner
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python scripts/bench.py
	$(BIN)/python scripts/bench_fleet.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .bench
