# lnk sandbox. The README's two commands are `make shell` and `make test`.
GO ?= go

.PHONY: shell test build bench generate
# shell: a confined shell in the current folder on the default spec; the
# daemon starts on its own.
shell:
	@bash build/shell.sh

# test: install the test dependencies and run every gate and test (CI runs this).
test:
	@bash build/test.sh

build:
	CGO_ENABLED=0 $(GO) build -o bin/lnk ./app/lnk

bench: build
	@bash build/bench.sh

generate:
	$(GO) generate ./...
