# Two commands do all set-up on a fresh machine:
#   make site   build the whole site into site/ (executes only stale snippets, on CUDA if present)
#   make test   run the full test suite (browser tests included)
#   make pdf    the book as kernelbook-ja.pdf and kernelbook-en.pdf here (PAPER=letter for US Letter)
# Override the interpreter or the torch build:  make site PYTHON=python3.12 TORCH_SPEC='torch==2.11.0'
# A CPU-only torch from PyTorch's own index:     make site TORCH_INDEX=https://download.pytorch.org/whl/cpu

PYTHON ?= python3
VENV ?= .venv
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
# pytest-xdist workers for `make test` (CI has 2 cores; tests' module fixtures stay on one worker)
TEST_WORKERS ?= 2
PAPER ?= a4
BIN := $(VENV)/bin

.PHONY: site test pdf capture serve status clean

site: $(VENV)/.installed
	$(BIN)/kernelbook build

# pytest's exit 5 means it collected no test: never a pass. Tests write nothing into the
# checkout, bytecode caches included.
test: $(VENV)/.installed .ci/.browser
	PYTHONDONTWRITEBYTECODE=1 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup; code=$$?; \
	if [ $$code -eq 5 ]; then echo "pytest collected no tests: that is a failure" >&2; exit 1; fi; exit $$code

# built read-only (nothing executed, nothing written into docs/), then printed by Chromium
pdf: $(VENV)/.installed .ci/.browser
	$(BIN)/kernelbook pdf --paper $(PAPER)

capture: $(VENV)/.installed
	$(BIN)/kernelbook capture

status: $(VENV)/.installed
	$(BIN)/kernelbook status

serve: $(VENV)/.installed
	$(BIN)/kernelbook serve

# The environment is rebuilt when pyproject.toml changes. torch is installed first,
# pinned, so that the project's torch>=2.5 is already satisfied and pip never pulls
# a multi-GB build by accident; a torch already present in the venv is kept.
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install -q "$(TORCH_SPEC)" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

# Browser tests drive Debian's chromium (never `playwright install`), with a Japanese font:
# without one every Japanese glyph renders as a box (tests/test_browser.py checks it does not).
# The PDFs set Japanese in IPAexGothic (TrueType: Chromium embeds it as a named font, where
# Noto CJK's CFF outlines become unnamed Type 3 glyphs); tests/test_pdf.py reads them with poppler.
BROWSER_PACKAGES := chromium fonts-noto-cjk fonts-ipaexfont-gothic poppler-utils
.ci/.browser:
	@if ! command -v chromium >/dev/null || ! command -v pdftotext >/dev/null || ! dpkg-query -W -f='$${Status}' fonts-noto-cjk fonts-ipaexfont-gothic 2>/dev/null | grep -q "ok installed.*ok installed"; then \
		echo "installing $(BROWSER_PACKAGES) (apt-get)"; \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends $(BROWSER_PACKAGES) >/dev/null; \
	fi
	touch $@

clean:
	rm -rf site .site-* .kernelbook build test-output kernelbook-*.pdf
