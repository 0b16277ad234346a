# Every target creates .venv from nothing when it is missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint deps adb chromium apt clean

$(STAMP): pyproject.toml
	@$(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "LLuMa needs Python 3.11 or newer ($(PY) is older; set PY=python3.11)"; exit 1; }
	@$(PY) -c 'import ensurepip' 2>/dev/null || $(MAKE) --no-print-directory apt PKG=python3-venv
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

deps: $(STAMP)

# Debian packages: `make apt PKG=name` (sudo when not root).
apt:
	@SUDO=$$(command -v sudo >/dev/null 2>&1 && [ "$$(id -u)" != 0 ] && echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(PKG) >/dev/null

# The real adb client (Debian package `adb`) is used by the protocol tests.
adb:
	@command -v adb >/dev/null 2>&1 || $(MAKE) --no-print-directory apt PKG=adb

# Headless Chromium (Debian package `chromium`) renders `lluma report` in tests/e2e/test_report_browser.py.
chromium:
	@command -v chromium >/dev/null 2>&1 || $(MAKE) --no-print-directory apt PKG=chromium

demo: $(STAMP)
	$(BIN)/lluma demo --turns 30

# Three workers on a 2-core machine: the e2e modules wait on their simulated phone and stand-in, and a third worker
# fills those waits (quiet, this machine: 2 workers 11 min 25 s, 3 workers 9 min 50 s, the CPU then 96% busy; with a
# line's crop read once, 8 min 34 s). Each
# test module runs on one worker, so a module's shared run (a fixture of scope "module") is played once.
# `make test TEST_WORKERS=0`: serial.
# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: pytest's assertion rewriting of every test module
# otherwise runs again in each worker and each `lluma` subprocess (collection took 60 s without it, 11 s with it).
# `--no-loadscope-reorder`: the workers take the modules in the order tests/conftest.py gives (costliest first).
# glibc keeps freed memory for reuse instead of returning it and faulting it in again: the frames (8 MB each) made a
# truth-vision e2e module take 2.95 M page faults and 13.3 s of system time; with these, 0.17 M and 3.3 s (39 s -> 28 s)
TEST_WORKERS ?= 3
TEST_MALLOC = MALLOC_MMAP_THRESHOLD_=536870912 MALLOC_TRIM_THRESHOLD_=2147483648 MALLOC_TOP_PAD_=268435456

test: $(STAMP) adb chromium
	$(BIN)/ruff check .
	$(BIN)/mypy
	PYTHONDONTWRITEBYTECODE= ADBUTILS_ADB_PATH=/bin/false $(TEST_MALLOC) $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder

bench: $(STAMP)
	$(BIN)/python bench/capture.py
	$(BIN)/python bench/vision.py
	$(BIN)/python bench/estimate_turn.py
	$(BIN)/python bench/tokens.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) logs/demo-* logs/run-* .pytest_cache
