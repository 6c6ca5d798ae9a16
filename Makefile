# gaol: a sandboxed code-execution service (FastCGI behind nginx).
# `make` builds build/gaol-fcgi and build/gaol-run; `make run` and `make test`
# install what they need from Debian's packages first (as root).

PREFIX    ?= /usr/local
DESTDIR   ?=
BUILD     ?= build
PORT      ?= 8080
LANGS     ?= $(notdir $(patsubst %/packages,%,$(wildcard langs/*/packages)))

CC        ?= cc
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
             -Wno-format-truncation
HARDEN    := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection \
             -fcf-protection -fPIE
LDHARDEN  := -pie -Wl,-z,relro,-z,now
PKGS      := json-c libseccomp libcgroup libcrypto
ifeq ($(SANITIZE),1)
BUILD     := build-san
CFLAGS    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
             -fno-sanitize-recover=all
HARDEN    := -fPIE
LDFLAGS   += -fsanitize=address,undefined
# Every report fails the run.  The reports of every instrumented process
# (unit tests, gaol-run, and the gaol-fcgi master and workers, whose stderr
# spawn-fcgi hands to the stack's log) go to files in SAN_LOG_DIR, one per
# process, which `make test` reads at the end (san-check).  The payloads are
# other programs, not instrumented, and never see these variables (their
# environment is an allowlist).
SAN_LOG_DIR := $(CURDIR)/$(BUILD)/sanitizer-logs
SAN_COMMON  := halt_on_error=1:abort_on_error=1:print_summary=1:log_path=$(SAN_LOG_DIR)/report
export ASAN_OPTIONS  := $(SAN_COMMON):detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1
export UBSAN_OPTIONS := $(SAN_COMMON):print_stacktrace=1
export LSAN_OPTIONS  := $(SAN_COMMON)
endif
ALL_CFLAGS  = -std=gnu11 $(WARN) $(HARDEN) $(CFLAGS) -Icore \
              $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
ALL_LDLIBS  = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# core/ is laid out by which process runs the code (docs/layout.md); every
# header is included by its path under core/ ("run/sandbox.h").
CORE_SRC  := $(wildcard core/*/*.c)
CORE_HDR  := $(wildcard core/*/*.h)
CORE_OBJ  := $(CORE_SRC:%.c=$(BUILD)/%.o)
FCGI_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(filter-out fcgi/gaol-run.c,$(wildcard fcgi/*.c)))
UNIT_SRC  := $(wildcard tests/unit/*.c)

# Debian packages, by purpose.  Languages list their own in langs/<slug>/packages.
DEPS_BUILD := gcc make pkg-config libfcgi-dev libjson-c-dev libseccomp-dev libcgroup-dev libssl-dev
DEPS_RUN   := nginx spawn-fcgi
DEPS_TEST  := check python3 python3-pytest curl iproute2 systemd
DEPS_BENCH := wrk hyperfine bubblewrap
DEPS_FUZZ  := clang-14 libclang-rt-14-dev

.PHONY: all deps deps-build deps-test deps-bench deps-fuzz run test unit integration \
        isolation bench install clean prepare san-reset san-check fuzz fuzz-smoke \
        fuzz-build fuzz-merge soak mini-soak
all: $(BUILD)/gaol-fcgi $(BUILD)/gaol-run prepare

# Heavy per-language work done once, into the read-only language directories:
# precompiled headers, class-data archives.  A language whose toolchain is
# missing is skipped (it answers "not installed" at run time).
prepare:
	@mkdir -p $(BUILD); for d in langs/*/; do \
	  grep -q '^prepare:' $$d/Makefile 2>/dev/null || continue; \
	  l=$$(basename $$d); \
	  if $(MAKE) -s -C $$d prepare >$(BUILD)/prepare-$$l.log 2>&1; then echo "prepare: $$l ok"; \
	  else echo "prepare: $$l skipped (see $(BUILD)/prepare-$$l.log)"; fi; \
	done

$(BUILD)/%.o: %.c $(CORE_HDR) $(wildcard fcgi/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/libgaol.a: $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/gaol-fcgi: $(FCGI_OBJ) $(BUILD)/libgaol.a
	$(CC) $(LDHARDEN) $(LDFLAGS) -o $@ $^ -lfcgi $(ALL_LDLIBS)

# gaol-run lives beside the FastCGI front end because it is one: the
# engine's answers through the command line, with the HTTP status the
# service would send (fcgi/status.c), but without libfcgi.
$(BUILD)/gaol-run: $(BUILD)/fcgi/gaol-run.o $(BUILD)/fcgi/status.o $(BUILD)/libgaol.a
	$(CC) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(ALL_LDLIBS)

$(BUILD)/unit-tests: $(UNIT_SRC) tests/unit/suites.h $(CORE_HDR) $(BUILD)/libgaol.a
	$(CC) $(ALL_CFLAGS) $(LDHARDEN) $(LDFLAGS) -o $@ $(UNIT_SRC) $(BUILD)/libgaol.a \
	      $(shell pkg-config --cflags --libs check) $(ALL_LDLIBS)

# Installs the missing ones of a list of Debian packages, non-interactively.
define apt_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  [ "$$(id -u)" = 0 ] || { echo "deps: need root to install$$missing" >&2; exit 1; }; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

LANG_PKGS = $(foreach l,$(LANGS),$(shell cat langs/$(l)/packages 2>/dev/null))

deps: deps-build
	$(call apt_missing,$(DEPS_RUN) $(LANG_PKGS))
deps-build:
	$(call apt_missing,$(DEPS_BUILD))
deps-test: deps
	$(call apt_missing,$(DEPS_TEST))
deps-bench: deps
	$(call apt_missing,$(DEPS_BENCH))
deps-fuzz: deps-build
	$(call apt_missing,$(DEPS_FUZZ))

run: deps
	$(MAKE) all
	BUILD=$(BUILD) PORT=$(PORT) nginx/stack.sh

test: deps-test deps-fuzz
	$(MAKE) all $(BUILD)/unit-tests fuzz-build
	$(MAKE) san-reset
	$(MAKE) unit integration isolation fuzz-smoke mini-soak || { $(MAKE) san-check; exit 1; }
	$(MAKE) san-check

# Sanitizer reports (SANITIZE=1 only): san-reset empties SAN_LOG_DIR before
# the suites, san-check fails when any process wrote a report into it.
# Warnings (ASan's notes about clone()'s stacks) are shown, not failed on.
SAN_ERRORS := ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: (Address|Undefined|Leak)
san-reset:
ifeq ($(SANITIZE),1)
	@rm -rf $(SAN_LOG_DIR) && mkdir -p $(SAN_LOG_DIR)
endif
san-check:
ifeq ($(SANITIZE),1)
	@files=$$(ls $(SAN_LOG_DIR)/report.* 2>/dev/null); \
	 if [ -z "$$files" ]; then echo "sanitizers: no report from any process"; exit 0; fi; \
	 bad=$$(grep -lE '$(SAN_ERRORS)' $$files); \
	 for f in $$files; do echo "==== $$f"; head -c 20000 $$f; done; \
	 if [ -n "$$bad" ]; then echo "sanitizers: FAILED: reports in$$(printf ' %s' $$bad)" >&2; exit 1; fi; \
	 echo "sanitizers: warnings only (above), no error report"
endif

unit: $(BUILD)/unit-tests
	GAOL_LANGS_DIR=$(CURDIR)/langs $(BUILD)/unit-tests

PYTEST = /usr/bin/python3 -m pytest -p no:cacheprovider -q
integration:
	BUILD=$(BUILD) $(PYTEST) tests/integration
isolation:
	@if ls tests/isolation/test_*.py >/dev/null 2>&1; then BUILD=$(BUILD) $(PYTEST) tests/isolation; \
	 else echo "isolation: no tests yet"; fi

# Soak (tests/soak/soak.py): the real stack under a mixed load at twice
# RUN_CONCURRENCY (default 4 here) for SOAK_SECONDS, then requests by
# status, 5xx, and the growth of RSS, fds, processes, mounts and cgroups;
# fails when a target is missed.  Not part of `make test`, which runs the
# 20-second mini-soak (every target but RSS, which needs more requests).
SOAK_SECONDS ?= 120
soak: deps-test
	$(MAKE) all
	BUILD=$(BUILD) SOAK_SECONDS=$(SOAK_SECONDS) /usr/bin/python3 tests/soak/soak.py
mini-soak:
	BUILD=$(BUILD) /usr/bin/python3 tests/soak/soak.py --seconds 20 --no-rss

bench: deps-bench
	$(MAKE) all
	BUILD=$(BUILD) tests/bench/run.sh

# ---------------------------------------------------------------- fuzzing
# libFuzzer targets (tests/fuzz/fuzz_<name>.c) over the engine's parsers,
# built with clang, ASan and UBSan into build/fuzz/.  Seed corpora, and every
# input that once crashed a target, are committed in tests/fuzz/corpus/<name>/.
#   make fuzz          each target for FUZZ_SECONDS (default 60); new inputs
#                      go to build/fuzz/corpus/<name>/, crashes to
#                      build/fuzz/artifacts/
#   make fuzz-merge    adds what `make fuzz` found that covers new code to
#                      the committed corpora
#   make fuzz-smoke    each target briefly from the committed corpus (part of
#                      `make test`), FUZZ_SMOKE_SECONDS each (default 5)
FUZZ_BUILD   := build/fuzz
FUZZ_CC      := clang-14
FUZZ_TARGETS := run_request eval_request timeout utf8 lang_manifest compare
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                -fno-sanitize-recover=all -Wall -Wextra -Werror -Icore \
                $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_OBJ     := $(CORE_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BIN     := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/core/%.o: core/%.c $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/libgaol.a: $(FUZZ_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(CORE_HDR) $(FUZZ_BUILD)/libgaol.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/libgaol.a $(ALL_LDLIBS)

fuzz-build: $(FUZZ_BIN)

fuzz-smoke: fuzz-build
	FUZZ_TARGETS="$(FUZZ_TARGETS)" tests/fuzz/run.sh smoke $(FUZZ_SMOKE_SECONDS)

fuzz: deps-fuzz
	$(MAKE) fuzz-build
	FUZZ_TARGETS="$(FUZZ_TARGETS)" tests/fuzz/run.sh long $(FUZZ_SECONDS)

fuzz-merge: fuzz-build
	FUZZ_TARGETS="$(FUZZ_TARGETS)" tests/fuzz/run.sh merge

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/gaol \
	           $(DESTDIR)$(PREFIX)/share/gaol/nginx $(DESTDIR)$(PREFIX)/lib/systemd/system
	install -m 0755 $(BUILD)/gaol-fcgi $(BUILD)/gaol-run $(DESTDIR)$(PREFIX)/bin/
	cp -R langs $(DESTDIR)$(PREFIX)/share/gaol/
	install -m 0644 nginx/*.conf $(DESTDIR)$(PREFIX)/share/gaol/nginx/
	for u in systemd/*.service systemd/*.socket; do \
	  sed 's|@PREFIX@|$(PREFIX)|g' $$u > $(DESTDIR)$(PREFIX)/lib/systemd/system/$$(basename $$u); \
	done

clean:
	rm -rf build build-san
