# The two quick-start commands (README):
#   make doctor   install what is missing, build, run the default diagnosis
#   make test     install what is missing, build, run every test
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: doctor test build build-main configure setup setup-test clean format windows check-portable

# Exit 1 means "findings to read", which is the job done, not a failed make;
# 2 (set-up) and 4 (internal error) still fail.
doctor: setup build-main
	./$(BUILD)/accel-doctor || [ $$? -eq 1 ]

# make test, in order: the portability check (issue 10: no POSIX-only header
# or call outside src/platform/{posix,linux}, scripts/check_portable.sh); the
# build and ctest; the torch engine's files compiled for Windows (mingw-w64,
# syntax only: scripts/check_engine_mingw.sh); the reliability stage (issue 16):
# the torch-free unit tests under ASan+UBSan and every fuzz target for
# FUZZ_SECONDS each, in build-fuzz/ (clang; the main build is untouched; it
# ends with "N passed, M failed"); the Windows stage: the mingw-w64 cross-build
# in build-windows/ and its tests under Wine (scripts/test_windows.sh).
FUZZ_SECONDS ?= 20
# TSAN=1 adds ThreadSanitizer (tsan_tests, build-tsan/) to the reliability stage.
TSAN ?= 0
test: setup-test check-portable build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	JOBS=$(JOBS) scripts/check_engine_mingw.sh
	JOBS=$(JOBS) TSAN=$(TSAN) scripts/sanitize_and_fuzz.sh $(FUZZ_SECONDS)
	JOBS=$(JOBS) BUILD_WINDOWS=$(BUILD_WINDOWS) scripts/test_windows.sh

check-portable:
	scripts/check_portable.sh

# The Windows build, cross-compiled here with Debian's mingw-w64 (posix
# threads, static): the torch-free libraries and tests (docs/windows.md).
BUILD_WINDOWS ?= build-windows
windows: setup-test
	JOBS=$(JOBS) BUILD_WINDOWS=$(BUILD_WINDOWS) scripts/test_windows.sh build

setup:
	scripts/setup.sh build

setup-test:
	scripts/setup.sh test

# -g1 (line tables: file:line in backtraces and addr2line, no variable info)
# instead of CMake's -g: a quarter to a third less compile time (rules_perf.cpp
# 15.7 -> 11.8 CPU-s, redact.cpp 7.4 -> 4.9; g++ 12, 2026-12-02).
RELWITHDEBINFO_FLAGS ?= -O2 -g1 -DNDEBUG
configure:
	@if [ ! -f $(BUILD)/build.ninja ] && [ ! -f $(BUILD)/Makefile ]; then \
	  gen=""; command -v ninja >/dev/null && gen="-G Ninja"; \
	  cmake -S . -B $(BUILD) $$gen -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$(RELWITHDEBINFO_FLAGS)" $(CMAKE_FLAGS); \
	fi

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job needs the two binaries (front end and torch engine), not the test programs.
build-main: configure
	cmake --build $(BUILD) -j $(JOBS) --target accel-doctor accel-doctor-torch

format:
	find src tests -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD) build-fuzz build-tsan $(BUILD_WINDOWS)
