# The two commands the README promises: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORPUS ?= $(shell test -d ../shared/corpus/raw && echo ../shared/corpus/raw)
export HF_HUB_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first, pinned to the CPU build on disk, so nothing pulls a CUDA build.
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

install: $(BIN)/.installed

demo: $(BIN)/.installed
	CORPUS="$(CORPUS)" $(BIN)/python -m lexcite.demo

test: $(BIN)/.installed
	$(BIN)/pytest -q

lint: $(BIN)/.installed
	$(BIN)/ruff check lexcite tests bench

.PHONY: install demo test lint
