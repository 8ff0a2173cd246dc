# Every target creates or reuses .venv itself: a fresh clone needs nothing installed by hand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test fuzz lint typecheck bench eval sample-vm-perms native clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,fleet,images]'
	@touch $(STAMP)

# The hot session modules compiled with mypyc, in place (scanner/native.py lists them; git ignores the build).
# Rebuilt when one of them changes; without a C compiler or mypyc they stay pure Python and nothing fails.
NATIVE := $(VENV)/.native
NATIVE_SOURCES := $(wildcard scanner/native.py scanner/sessions/*.py scanner/sessions/adapters/*.py)

$(NATIVE): $(STAMP) $(NATIVE_SOURCES)
	-$(BIN)/python scripts/build_native.py > $(VENV)/native.log 2>&1; tail -n 1 $(VENV)/native.log
	@touch $(NATIVE)

native: $(NATIVE)

# The shipped catalogs parsed and their search rules compiled ahead, in place (scanner/catalog/prebuilt.py; git
# ignores them): a scan loads them in ~30 ms where parsing and compiling took ~0.7 s. Rebuilt when a catalog or
# the code changes (what no longer matches is read as before until then).
RULES := $(VENV)/.rules
$(RULES): $(STAMP) $(wildcard catalogs/*.toml) $(shell find scanner -name '*.py')
	-$(BIN)/python scripts/build_rules.py
	@touch $(RULES)

# Key files of sample_vm get the mode (and, as root, the owner) the VM gives them; git keeps neither.
sample-vm-perms:
	@$(BIN)/python scripts/apply_perms.py sample_vm sample_vm.perms

demo: $(STAMP) $(NATIVE) $(RULES) sample-vm-perms
	$(BIN)/modelcensus scan sample_vm

test: $(STAMP) $(NATIVE) $(RULES) sample-vm-perms lint typecheck
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check scanner tests scripts

typecheck: $(STAMP)
	$(BIN)/mypy --strict scanner

# The property suites with the "fuzz" hypothesis profile (tests/conftest.py): 10,000 examples each.
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q tests/test_fuzz.py tests/test_config_formats.py \
		tests/test_diff_properties.py tests/test_sessions_robustness.py tests/test_reader_work.py \
		tests/test_regexwidth.py tests/test_inflate.py

bench: $(STAMP) $(NATIVE) $(RULES)
	$(BIN)/python scripts/bench.py
	$(BIN)/python scripts/bench_real.py
	$(BIN)/python scripts/bench_fleet.py
	$(BIN)/python scripts/bench_images.py
	$(BIN)/python scripts/bench_weights.py
	$(BIN)/python scripts/bench_bombs.py

# Not part of `test`: builds real-part corpora from the registries (network, ~6 GB under .eval/), then
# scans and scores them against their truth files (eval/README.md). EVAL_ARGS="--only dev-machine" etc.;
# EVAL_ARGS="--golden-save DIR" keeps the JSON outputs, "--golden DIR" checks them byte for byte (stats apart).
eval: $(STAMP) $(RULES)
	$(BIN)/python eval/run_eval.py $(EVAL_ARGS)

clean:
	-$(PYTHON) scripts/build_native.py --clean
	rm -rf scanner/_rules
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .bench
