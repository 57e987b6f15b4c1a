# vprof: see README.md. All targets work on a fresh Debian machine with Go and gcc.
GO      ?= go
BIN     := bin
VPROF   := $(BIN)/vprof

.PHONY: install debug-tools check-slowdown all build vprof testprogs test fuzz demo bench bench-memory bench-schema eval clean chromium xray-tools xray-demo perf-tools

all: build testprogs

build vprof:
	$(GO) build -o $(VPROF) ./cmd/vprof

# vprof on the PATH: make install PREFIX=$$HOME/.local puts it in ~/.local/bin.
PREFIX ?= /usr/local
install: build
	install -D -m 755 $(VPROF) $(DESTDIR)$(PREFIX)/bin/vprof

testprogs:
	$(MAKE) -C testprogs

# The test command of the README and of CI (go.mod and go.sum tidy first).
test: build testprogs chromium xray-tools debug-tools
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m $$($(GO) list ./... | grep -v '/sampler')
	@# The sampler's tests time threads against the wall clock: alone, not
	@# beside another package's programs on a 2-core machine.
	$(GO) test -count=1 -timeout 20m ./sampler/...
	FUZZTIME=2s ./scripts/fuzz.sh

# The buggy mode of every test program is measurably slower (a timing:
# run it on a quiet machine, not in make test).
check-slowdown: testprogs
	VPROF_CHECK_SLOWDOWN=1 $(GO) test -count=1 -run TestRunModes ./testprogs

# Every fuzz target for FUZZTIME each (default 2s; crashers land in testdata).
fuzz:
	./scripts/fuzz.sh

# Debian's chromium, for the timeline's browser tests; clang and llvm-xray
# for its test on a real XRay trace.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

# gdb, to cross-check locations and values; dwz, for compressed debug files;
# libc6-dbg, libc's separate debug file (exports name libc's local functions).
debug-tools:
	@command -v gdb >/dev/null 2>&1 && command -v dwz >/dev/null 2>&1 && dpkg -s libc6-dbg >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gdb dwz libc6-dbg; }

xray-tools:
	@command -v clang >/dev/null 2>&1 && command -v llvm-xray >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang llvm; }

# An outside trace: a C program under clang's XRay, converted with
# llvm-xray to Chrome trace-event JSON, drawn by vprof timeline.
xray-demo: build xray-tools
	./analyze/timeline/testdata/xray/xray-demo.sh $(VPROF) $(BIN)/xray-demo

demo: build testprogs
	./scripts/demo.sh

# The scoreboard: for every test program, 3 trials of 3 normal + 3 buggy runs
# recorded whole, the root-cause rank by vprof (whole-program, the headline;
# and narrowed to the root cause's file, the thesis' protocol), by a plain PC
# profile and by gprof (-pg builds). EVAL_FLAGS='-only a,b -trials 1 -runs 1'
# for a quick look (later flags win).
# Recording overhead at 1, 4 and 16 threads of a server-shaped workload:
# plain vs the whole vprof record command vs perf record -F 1000
# --call-graph dwarf, interleaved; ratios (median over pairs of runs) and
# vprof's per-stage breakdown. BENCH_FLAGS='-fields -kernel -gprof -rates
# 1000,5000' adds configurations; see go run ./sampler/bench -h.
bench: build perf-tools
	$(GO) run ./sampler/bench -vprof $(VPROF) $(BENCH_FLAGS)

# perf (Debian's linux-perf), which make bench compares vprof with.
perf-tools:
	@command -v perf >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-perf; }

# Peak memory of the analysis on big inputs (writes ~4 GB to the temporary
# directory, VPROF_BENCH_DIR to keep them): report's on a 128 MiB normal and a
# 1 GiB buggy profile; timeline's RegTime on a 50 M-call trace, streamed and
# whole in memory side by side.
bench-memory:
	VPROF_BENCH_MEMORY=1 $(GO) test -run - -bench 'AnalyzeMemory|TimelineMemory' -benchtime 1x -timeout 60m ./analyze/rank ./analyze/regtime

# Schema reading vs gdb -batch -readnow on the same binaries, alternated:
# medians of wall, CPU and peak RSS, ratios side by side. Binaries:
# BENCH_SCHEMA_BINS (default gold, whose DWARF is in Debian's
# binutils-x86-64-linux-gnu-dbg); skips cleanly without gdb or DWARF.
bench-schema: build
	$(GO) run ./dwarfschema/bench $(BENCH_SCHEMA_FLAGS) $(BENCH_SCHEMA_BINS)

eval: build testprogs
	$(MAKE) -C testprogs pg
	$(GO) run ./cmd/vprof-eval -trials 3 $(EVAL_FLAGS)

clean:
	rm -rf $(BIN)
	$(MAKE) -C testprogs clean
