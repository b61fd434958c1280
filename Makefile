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

# Offline when CORPUS is a folder of EUR-Lex files (default: ../shared/corpus/raw), else from Cellar.
demo: $(BIN)/.installed
ifneq ($(CORPUS),)
	$(BIN)/lexcite ingest $(CORPUS)/32024R1689.oj.xhtml $(CORPUS)/32026R1744.oj.xhtml $(CORPUS)/32016R0679.oj.html
else
	$(BIN)/lexcite refresh --no-index
endif
	$(BIN)/lexcite acts
	$(BIN)/lexcite show '32024R1689#art_51.par_2'
	$(BIN)/lexcite show 'Art. 6(2) AI Act' --as-of 2025-01-01
	# minilm without the second reading keeps the demo to minutes on 2 cores; `lexcite index` alone uses the
	# defaults (e5, and all-mpnet-base-v2's second reading of every passage), better but several times slower here.
	$(BIN)/lexcite index --embedder minilm --reranker embedder:minilm --second none
	# asked under a law the catalog does not hold: refused, naming the law, not answered from another act
	# (a refusal exits 3, so scripts can tell it from an answer; here it is the expected outcome)
	$(BIN)/lexcite ask "Under the Data Act, can owners of a connected car demand the data it generates?" || test $$? -eq 3
	$(BIN)/lexcite ask "How much can a company be fined for using a prohibited AI practice?"

test: $(BIN)/.installed
	$(BIN)/pytest -q

lint: $(BIN)/.installed
	$(BIN)/ruff check lexcite tests bench

.PHONY: install demo test lint
