# GradStudio — developer entry points.
#   make run     set up .venv if needed, then open the studio
#   make test    set up, then ruff, import-linter, mypy and pytest (offscreen Qt, a worker
#                per core: PYTEST_WORKERS=0 for one process)
#   make deps    check/install the system libraries PySide6 needs (Debian)
#   make core    compile the engine's hot modules (optional: pure Python otherwise)
#   make bench | lint | format | clean | distclean
#
# PYTEST_ARGS="-k autograd -x" make test   passes extra arguments to pytest.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=
# pytest-xdist workers: one per core ("auto"); PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= auto

export PIP_DISABLE_PIP_VERSION_CHECK := 1

.DEFAULT_GOAL := run
.PHONY: run test deps core venv lint format bench clean distclean

run: deps core
	$(BIN)/python main.py

# Lint and tests all run; the target fails if any of them failed.
# pytest's own exit status wins (so 5, "no tests collected", stays visible to callers).
# The engine tests run a second time on the pure-Python engine (the compiled core's
# fallback, and what a wheel built without a compiler runs), leaving out the heavy
# parametrisations marked `once`. The `cuda` tests run twice: in the whole suite
# (skipped without a GPU), then again on the CuPy simulator (tests/cupy_sim.py), so the
# CUDA path is exercised on every machine (exit 5 there only means that PYTEST_ARGS
# selected no cuda test); that pass leaves out the `slow` ones (the census corpus's
# longest programs run on CUDA: `pytest --cupy-sim -m cuda` runs them).
test: deps core
	@status=0; \
	echo "== ruff check"; $(BIN)/ruff check . || status=1; \
	echo "== ruff format --check"; $(BIN)/ruff format --check . || status=1; \
	echo "== lint-imports"; $(BIN)/lint-imports --no-logo || status=1; \
	echo "== mypy"; $(BIN)/mypy || status=1; \
	echo "== pytest"; \
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS) || status=$$?; \
	echo "== pytest tests/engine_tests on the pure-Python engine (GRADSTUDIO_PURE=1)"; \
	GRADSTUDIO_PURE=1 QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) \
	  -m "not slow and not once" tests/engine_tests || \
	  { rc=$$?; if [ $$status -eq 0 ]; then status=$$rc; fi; }; \
	echo "== pytest -m cuda on the CuPy simulator"; \
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --cupy-sim \
	  -m "cuda and not slow" $(PYTEST_ARGS) || \
	  { rc=$$?; if [ $$rc -ne 5 ] && [ $$status -eq 0 ]; then status=$$rc; fi; }; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests: treated as a failure" >&2; fi; \
	exit $$status

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-logo
	$(BIN)/mypy

format: venv
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: deps core
	$(BIN)/python bench/run_all.py

# ------------------------------------------------------------------ set-up
venv: $(VENV)/.installed

# The virtualenv. Debian's own python3 needs python3-venv for this; install it when we can.
$(BIN)/python:
	@if ! $(PYTHON) -m venv $(VENV); then \
	  rm -rf $(VENV); \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" -eq 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends python3-venv && \
	    $(PYTHON) -m venv $(VENV); \
	  else \
	    echo "could not create $(VENV): on Debian/Ubuntu install python3-venv" >&2; exit 1; \
	  fi; \
	fi

# The project and its dev tools, reinstalled only when pyproject.toml changes. "compat"
# puts the checkout itself on sys.path, so packages added later (ui/) import too.
$(VENV)/.installed: pyproject.toml setup.py | $(BIN)/python
	@echo "== installing GradStudio and its dependencies into $(VENV) (pip)"
	$(BIN)/python -m pip install --progress-bar on --config-settings editable_mode=compat -e '.[dev]'
	@touch $@

# System libraries for Qt. .ci/qt-deps exits 0 when all are there (then we remember it),
# 3 when only the libraries for a real window are missing (a warning), 1 otherwise.
deps: $(VENV)/.installed
	@if [ ! -e $(VENV)/.qt-deps-ok ] || [ $(VENV)/.installed -nt $(VENV)/.qt-deps-ok ]; then \
	  rc=0; bash .ci/qt-deps $(VENV) || rc=$$?; \
	  if [ $$rc -eq 0 ]; then touch $(VENV)/.qt-deps-ok; elif [ $$rc -ne 3 ]; then exit $$rc; fi; \
	fi

# The compiled core (engine/compiled_core.py): a C compiler and Python's headers from
# Debian when root, Cython from PyPI, then `python -m engine.build`, which compiles only
# the modules whose source changed since their build. None of it is required: whatever
# fails here, the engine runs as pure Python and the target still succeeds.
core: venv
	-@inc="$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"; \
	if ! command -v gcc >/dev/null || [ ! -f "$$inc/Python.h" ]; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" -eq 0 ]; then \
	    echo "== installing a C compiler and Python's headers (Debian: gcc python3-dev)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends gcc python3-dev; \
	  else \
	    echo "make core: no C compiler or Python headers (Debian: gcc python3-dev)" >&2; \
	  fi; \
	fi
	-@$(BIN)/python -c 'import Cython, setuptools' 2>/dev/null || \
	  { echo "== installing Cython (for the compiled core)"; \
	    $(BIN)/python -m pip install --progress-bar on 'cython>=3.1,<4' setuptools; }
	-@$(BIN)/python -m engine.build || \
	  echo "make core: the compiled core did not build (see above); the engine runs as pure Python" >&2

# ------------------------------------------------------------------ cleaning
clean:
	rm -rf build dist .pytest_cache .ruff_cache .mypy_cache .hypothesis .import_linter_cache *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
