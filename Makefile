# vprof: see README.md. All targets work on a fresh Debian machine with Go and gcc.
GO      ?= go
BIN     := bin
VPROF   := $(BIN)/vprof

.PHONY: all build vprof testprogs test fuzz demo bench eval clean

all: build testprogs

build vprof:
	$(GO) build -o $(VPROF) ./cmd/vprof

testprogs:
	$(MAKE) -C testprogs

# The test command of the README and of CI.
test: build testprogs
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

demo: build testprogs
	./scripts/demo.sh

clean:
	rm -rf $(BIN)
	$(MAKE) -C testprogs clean
