# SPDX-License-Identifier: Apache-2.0
# gaol: a sandboxed code-execution service (FastCGI behind nginx).
# `make` builds build/gaol-fcgi and build/gaol-run; `make run` and `make test`
# install what they need from Debian's packages first (as root).

PREFIX    ?= /usr/local
DESTDIR   ?=
BUILD     ?= build
PORT      ?= 8080
# The languages whose Debian packages `make deps` (and so `make run` and `make
# test`) installs: by default the 19 Codebattle languages (README, "Languages");
# LANGS=all every directory of langs/ (issue 33's too), or a list of slugs.
DEFAULT_LANGS := c clojure cpp csharp dart dlang elixir golang haskell java js kotlin php python \
                 ruby rust swift ts zig
ALL_LANGS := $(notdir $(patsubst %/packages,%,$(wildcard langs/*/packages)))
LANGS     ?= $(DEFAULT_LANGS)

CC        ?= cc
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
             -Wno-format-truncation
HARDEN    := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection \
             -fcf-protection -fPIE
LDHARDEN  := -pie -Wl,-z,relro,-z,now
PKGS      := json-c libseccomp libcgroup libcurl
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
# The version and the build, for --version and /health (core/conf/version.c).
# In a git checkout: debian/changelog's upstream version (the release line)
# plus +git<commits>.g<hash> (.dirty with uncommitted changes), so that every
# commit has a larger Debian version; the build is `git describe`.  A tree
# without git (a release tarball, the copy `make deb` builds in) has a VERSION
# file instead: line 1 the version, line 2 the build.
VERSION_BASE := $(shell sed -n '1s/^gaol (\([^)-]*\).*/\1/p' debian/changelog 2>/dev/null)
ifneq ($(wildcard VERSION),)
GAOL_VERSION ?= $(shell sed -n 1p VERSION)
GAOL_BUILD   ?= $(shell sed -n 2p VERSION)
else ifeq ($(shell git rev-parse --show-toplevel 2>/dev/null),$(CURDIR))
GIT_DIRTY    := $(if $(shell git status --porcelain --untracked-files=no 2>/dev/null),.dirty)
GAOL_VERSION ?= $(VERSION_BASE)+git$(shell git rev-list --count HEAD).g$(shell git rev-parse --short HEAD)$(GIT_DIRTY)
GAOL_BUILD   ?= $(shell git describe --tags --always --dirty)
else
GAOL_VERSION ?= $(VERSION_BASE)
GAOL_BUILD   ?= unknown
endif

ALL_CFLAGS  = -std=gnu11 $(WARN) $(HARDEN) $(CFLAGS) -Icore -I$(BUILD)/gen \
              $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
ALL_LDLIBS  = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# The programs need no libseccomp at run time: the payload's seccomp program
# is compiled when gaol is built (seccomp-gen, below).
RUN_LDLIBS  = $(shell pkg-config --libs $(filter-out libseccomp libcurl,$(PKGS)) 2>/dev/null)
# libcurl: gaol-fcgi's courier sends Judge0's callbacks (fcgi/courier.c).
FCGI_LDLIBS = $(RUN_LDLIBS) $(shell pkg-config --libs libcurl 2>/dev/null)

# core/ is laid out by which process runs the code (docs/layout.md); every
# header is included by its path under core/ ("run/sandbox.h").
# seccomp_gen.c is a build-time program (seccomp-gen), not part of libgaol.
CORE_SRC  := $(filter-out core/slot/seccomp_gen.c,$(wildcard core/*/*.c))
CORE_HDR  := $(wildcard core/*/*.h)
CORE_OBJ  := $(CORE_SRC:%.c=$(BUILD)/%.o)
FCGI_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(filter-out fcgi/gaol-run.c,$(wildcard fcgi/*.c)))
UNIT_SRC  := $(wildcard tests/unit/*.c)

# Debian packages, by purpose.  Languages list their own in langs/<slug>/packages.
DEPS_BUILD := gcc make pkg-config libfcgi-dev libjson-c-dev libseccomp-dev libcgroup-dev \
              libcurl4-openssl-dev
DEPS_RUN   := nginx spawn-fcgi util-linux unzip
DEPS_TEST  := check python3 python3-pytest python3-prometheus-client curl iproute2 systemd mandoc man-db nodejs
DEPS_BENCH := wrk hyperfine bubblewrap fcgiwrap
DEPS_FUZZ  := clang-14 libclang-rt-14-dev

.PHONY: all deps-check version FORCE deps deps-build deps-test deps-bench deps-fuzz run test unit integration \
        man-lint style isolation test-langs bench bench-langs bench-throughput bench-checkers profile install install-files deb deps-package test-package clean prepare san-reset san-check fuzz fuzz-smoke \
        fuzz-build fuzz-merge soak mini-soak test-cluster deps-vm vm test-vm test-vm-systemd
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

$(BUILD)/%.o: %.c $(CORE_HDR) $(wildcard fcgi/*.h) | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Rebuilt when the version changes (a new commit), not at every make.
VERSION_DEFS := -DGAOL_VERSION='"$(GAOL_VERSION)"' -DGAOL_BUILD='"$(GAOL_BUILD)"'
$(BUILD)/version.stamp: FORCE
	@mkdir -p $(BUILD); echo '$(VERSION_DEFS)' | cmp -s - $@ || echo '$(VERSION_DEFS)' > $@
$(BUILD)/core/conf/version.o: core/conf/version.c core/conf/version.h $(BUILD)/version.stamp | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(VERSION_DEFS) -c -o $@ $<
FORCE:
version:
	@echo $(GAOL_VERSION)

# A plain `make` on a machine without the build dependencies stops here, at
# once, with one line naming them, rather than in the compiler on a missing
# header.  dpkg's database where there is one; pkg-config and the libfcgi
# header elsewhere.
deps-check:
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
	  for p in $(DEPS_BUILD); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	  done; \
	else \
	  for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	  echo '#include <fcgiapp.h>' | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing libfcgi"; \
	fi; \
	if [ -n "$$missing" ]; then \
	  echo "make: missing build dependencies:$$missing -- run 'sudo make deps' (or apt-get install$$missing)" >&2; exit 1; \
	fi

$(BUILD)/libgaol.a: $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

# The payload's seccomp program: the table in core/slot/seccomp_policy.c,
# compiled by libseccomp here, once, rather than at every start (it depends
# on nothing else).  seccomp-gen is built without the build's CFLAGS (no
# sanitizer, no fuzzer instrumentation): it only runs here.
$(BUILD)/seccomp-gen: core/slot/seccomp_gen.c core/slot/seccomp_policy.c core/slot/seccomp_policy.h \
		      core/util/fail.c | deps-check
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -Icore $(shell pkg-config --cflags libseccomp) -o $@ \
	      core/slot/seccomp_gen.c core/slot/seccomp_policy.c core/util/fail.c \
	      $(shell pkg-config --libs libseccomp)
$(BUILD)/gen/seccomp_program.inc: $(BUILD)/seccomp-gen
	@mkdir -p $(dir $@)
	$< > $@.tmp && mv $@.tmp $@
$(BUILD)/core/slot/seccomp_program.o: $(BUILD)/gen/seccomp_program.inc

$(BUILD)/gaol-fcgi: $(FCGI_OBJ) $(BUILD)/libgaol.a
	$(CC) $(LDHARDEN) $(LDFLAGS) -o $@ $^ -lfcgi $(FCGI_LDLIBS)

# gaol-run lives beside the FastCGI front end because it is one: the
# engine's answers through the command line, with the HTTP status the
# service would send (fcgi/status.c), but without libfcgi.
$(BUILD)/gaol-run: $(BUILD)/fcgi/gaol-run.o $(BUILD)/fcgi/status.o $(BUILD)/libgaol.a
	$(CC) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(RUN_LDLIBS)

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
	  apt-get -o DPkg::Lock::Timeout=900 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $$missing; \
	fi
endef

LANG_PKGS = $(foreach l,$(if $(filter all,$(LANGS)),$(ALL_LANGS),$(LANGS)),$(shell cat langs/$(l)/packages 2>/dev/null))

deps: deps-build
	$(call apt_missing,$(DEPS_RUN) $(LANG_PKGS))
deps-build:
	$(call apt_missing,$(DEPS_BUILD))
# npm's piston-client (tests/integration/test_client_piston.py), at the
# versions package-lock.json pins, from the npm registry, once.  npm is
# Debian's package where `npm` is missing: a nodejs built elsewhere (such as
# NodeSource's) carries its own npm and conflicts with Debian's.
PISTON_CLIENT_DIR := tests/integration/piston
deps-test: deps
	$(call apt_missing,$(DEPS_TEST))
	$(if $(shell command -v npm),,$(call apt_missing,npm))
	@test -f $(PISTON_CLIENT_DIR)/node_modules/piston-client/package.json || \
	  npm ci --prefix $(PISTON_CLIENT_DIR) --no-audit --no-fund
deps-bench: deps
	$(call apt_missing,$(DEPS_BENCH))
deps-fuzz: deps-build
	$(call apt_missing,$(DEPS_FUZZ))

# Judge0's queue outlives the stack, as the package's /var/lib does: kept
# under $(BUILD) (RUN_QUEUE_DIR in the environment wins).
run: deps
	$(MAKE) all
	RUN_QUEUE_DIR=$${RUN_QUEUE_DIR:-$(abspath $(BUILD))/queue-$(PORT)} \
	BUILD=$(BUILD) PORT=$(PORT) nginx/stack.sh

test: deps-test deps-fuzz
	$(MAKE) all $(BUILD)/unit-tests fuzz-build
	$(MAKE) san-reset
	$(MAKE) style man-lint unit integration isolation fuzz-smoke mini-soak || { $(MAKE) san-check; exit 1; }
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

# The man pages: mandoc -Tlint reports nothing and man -l renders each.
man-lint:
	tests/package/man_lint.sh

# CONTRIBUTING.md's bounds, counted: no C file over 700 lines, no function over 90;
# and the floors of docs/layout.md: no folder includes one above it.
style:
	/usr/bin/python3 tests/style/lengths.py core/*/*.c fcgi/*.c
	/usr/bin/python3 tests/style/layers.py .

unit: $(BUILD)/unit-tests
	GAOL_LANGS_DIR=$(CURDIR)/langs $(BUILD)/unit-tests

PYTEST = /usr/bin/python3 -m pytest -p no:cacheprovider -q
# Under tests/warm.py: first one a+b /evaluate and one /run of the
# Codebattle example per installed language through gaol-run, then the
# suite, with what is cached kept mapped meanwhile (tests/hold.py): the CI
# host pages out unmapped file pages a minute after their last use, and a
# cold page cache on a slow disk is not what a client's own wall-clock
# limit should meet (CI three times: Rust's Codebattle /run 19.5 s at
# 118-515 ms CPU).
#
# SANITIZE=1 runs the toolchain matrix (every language's a+b, the clients'
# checkers, each language's limits) for SAN_LANGS only (tests/lang_select.py
# deselects the others' tests): the sanitizers watch gaol's C, which every
# language drives alike, and the plain pass has run all of them already.
SAN_LANGS ?= c python
integration:
	BUILD=$(BUILD) $(if $(filter 1,$(SANITIZE)),PYTHONPATH=$(CURDIR)/tests GAOL_TEST_LANGS="$(SAN_LANGS)") \
	  /usr/bin/python3 tests/warm.py $(PYTEST) $(if $(filter 1,$(SANITIZE)),-p lang_select) tests/integration
# Issue 33's languages, the whole matrix (runtime error, timeout, memory
# kill, fork bomb; tests/integration/matrix_more_langs.py) beside their short
# one (test_more_langs.py, which `make test` runs too).  Not in .ci/run: CI
# runs the short matrix only.  Installs every language first.
test-langs: deps-test
	$(MAKE) deps LANGS=all
	$(MAKE) all
	BUILD=$(BUILD) $(PYTEST) tests/integration/test_more_langs.py tests/integration/matrix_more_langs.py

# Every hostile program through POST /run, then through POST /execute.
# SANITIZE=1 runs the /run pass of SAN_ISOLATION only: the hostile programs
# that drive gaol's own C hardest (fork bombs, floods of output, files and
# descriptors, memory hogs, checkers and interactors that misbehave); the
# rest (the filesystem, identity, network and seccomp walls) is the kernel's
# to hold and runs in the plain pass, through both fronts.  What contains a
# program is the same sandbox whichever front built it; the sanitizers
# watch /execute's own C in tests/integration/test_execute.py.
SAN_ISOLATION ?= tests/isolation/test_processes.py tests/isolation/test_resources.py \
	tests/isolation/test_checker_isolation.py
isolation:
	@if ls tests/isolation/test_*.py >/dev/null 2>&1; then BUILD=$(BUILD) $(PYTEST) \
	   $(if $(filter 1,$(SANITIZE)),$(SAN_ISOLATION),tests/isolation \
	   && GAOL_ISOLATION_API=execute BUILD=$(BUILD) $(PYTEST) tests/isolation); \
	 else echo "isolation: no tests yet"; fi

# Soak (tests/soak/soak.py): the real stack under a mixed load at twice
# RUN_CONCURRENCY (default 4 here) for SOAK_SECONDS, then requests by
# status, 5xx, and the growth of RSS, fds, processes, mounts and cgroups;
# fails when a target is missed.  Not part of `make test`, which runs the
# 20-second mini-soak (every target but RSS, which needs more requests).
# Then the verdict-stability load (tests/soak/verdicts.py, issue 29): four
# clients x {python, cpp, java, js} x {cold, warm} x up to 200 tests, two
# CPU hogs on the host, for VERDICT_SECONDS (and until VERDICT_MIN_TESTS
# tests); any wrong verdict fails it.  `make test` runs its short form
# (tests/integration/test_verdict_stability.py).
SOAK_SECONDS ?= 120
VERDICT_SECONDS ?= 240
VERDICT_MIN_TESTS ?= 0
soak: deps-test
	$(MAKE) all
	BUILD=$(BUILD) SOAK_SECONDS=$(SOAK_SECONDS) /usr/bin/python3 tests/soak/soak.py
	BUILD=$(BUILD) VERDICT_SECONDS=$(VERDICT_SECONDS) VERDICT_MIN_TESTS=$(VERDICT_MIN_TESTS) \
	  /usr/bin/python3 tests/soak/verdicts.py
	# Judge0's queue, the long form of what `make test` runs with 100 and 40:
	# 1,000 submissions from 4 clients, and 1,000 with the master killed halfway.
	GAOL_JUDGE0_LOAD=1000 GAOL_JUDGE0_KILL_LOAD=1000 BUILD=$(BUILD) $(PYTEST) \
	  tests/integration/test_judge0_async.py -k "many_asynchronous or master_killed"
mini-soak:
	BUILD=$(BUILD) /usr/bin/python3 tests/soak/soak.py --seconds 20 --no-rss \
		$(if $(filter 1,$(SANITIZE)),--sanitized)

# Three gaol hosts as network namespaces behind nginx fronts (FastCGI over
# TCP), a bounded load, a host's master SIGKILLed and a host's link cut
# (tests/cluster).  Figures in $(BUILD)/cluster-figures.json.  Root; about
# two minutes.
test-cluster: deps-test
	$(MAKE) all
	BUILD=$(BUILD) $(PYTEST) -s tests/cluster

# Every figure of docs/bench.md in one invocation, each part rewriting its
# own section: the sandbox's own cost and the languages (tests/bench/run.sh),
# then issue 13's (bench-langs, bench-throughput below).  About 15 minutes.
bench: deps-bench
	$(MAKE) all
	BUILD=$(BUILD) tests/bench/run.sh
	$(MAKE) bench-langs
	$(MAKE) bench-throughput
	$(MAKE) bench-checkers

# Issue 13's language figures (tests/bench/langs.py): the whole gaol-run
# against isolate (ISOLATE=/path, when it is built), bwrap and sh; C++ /run
# against a bare g++; java and kotlin with and without their archives;
# /evaluate warm against cold with 1 and 2 clients, per-test overhead.
# Rewrites its own section of docs/bench.md.
bench-langs: deps-bench deps-test
	$(MAKE) all
	BUILD=$(BUILD) /usr/bin/python3 tests/bench/langs.py
	BUILD=$(BUILD) /usr/bin/python3 tests/bench/hello_langs.py

# Issue 30: a warm request with a testlib-style C++ checker against the same
# without one, and an interactive test against its plain twin, per test
# (tests/bench/checkers.py).  Rewrites its own section of docs/bench.md.
bench-checkers: deps-bench deps-test
	$(MAKE) all
	BUILD=$(BUILD) /usr/bin/python3 tests/bench/checkers.py

# Issue 13: POST /run through nginx against fcgiwrap + sh and against the
# least fresh sandbox (minbox) on the same nginx, RUN_CONCURRENCY 1, 2, 4, 8,
# and a worker's cycle step by step (a
# -DGAOL_PROFILE build of gaol-run in $(BUILD)/prof).  docs/bench.md, section 4.
bench-throughput: deps-bench
	$(MAKE) all
	$(MAKE) profile
	$(MAKE) $(BUILD)/minbox
	BUILD=$(BUILD) tests/bench/throughput.sh

# The least a fresh sandbox per request costs, as a FastCGI server: the
# throughput bench's third side (tests/bench/minbox.c; never a sandbox).
$(BUILD)/minbox: tests/bench/minbox.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(HARDEN) $(LDHARDEN) $(LDFLAGS) -o $@ $< -lfcgi

# gaol-run --repeat printing where a worker's cycle goes (core/util/prof.h).
profile:
	$(MAKE) BUILD=$(BUILD)/prof CFLAGS='$(CFLAGS) -DGAOL_PROFILE' $(BUILD)/prof/gaol-run

# ---------------------------------------------------------------- the v2 VM
# Debian 12's stock kernel (linux-image-amd64) under qemu with cgroup v2
# alone, this checkout at the same path inside (the host's / read-only over
# 9p, a writable overlay on it); see tests/vm/README.md.  The host builds
# first: the guest runs the host's userland, so the binaries run inside.
#   make vm CMD='build/gaol-fcgi --check'   one command, as root in this
#                      directory; its output and its exit status
#   make test-vm       the suites inside one VM (tests/vm/suites.sh)
#   make test-vm-systemd  systemd as PID 1, gaol.service and gaol.socket
#                      started by systemctl (tests/vm/systemd.sh)
# GAOL_VM_ACCEL=kvm tries KVM (default tcg), GAOL_VM_MEM (MiB, 3072),
# GAOL_VM_TIMEOUT (seconds, guard on the whole VM).
DEPS_VM := qemu-system-x86 linux-image-amd64 busybox-static cpio kmod
deps-vm:
	$(call apt_missing,$(DEPS_VM))
vm: deps-build deps-vm
	@[ -n "$$CMD" ] || { echo "usage: make vm CMD='build/gaol-fcgi --check'" >&2; exit 2; }
	$(MAKE) all
	BUILD=$(BUILD) tests/vm/run.sh "$$CMD"
test-vm: deps-test deps-vm
	$(MAKE) all $(BUILD)/unit-tests
	BUILD=$(BUILD) GAOL_VM_TIMEOUT=$${GAOL_VM_TIMEOUT:-3600} tests/vm/run.sh 'tests/vm/suites.sh'
test-vm-systemd: deps deps-vm
	$(MAKE) all
	BUILD=$(BUILD) tests/vm/run.sh --systemd 'tests/vm/systemd-check.sh'

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
FUZZ_TARGETS := run_request eval_request timeout utf8 lang_manifest compare files judge0_zip
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                -fno-sanitize-recover=all -Wall -Wextra -Werror -Icore -I$(BUILD)/gen \
                $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(VERSION_DEFS)
FUZZ_OBJ     := $(CORE_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BIN     := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/core/%.o: core/%.c $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/core/slot/seccomp_program.o: $(BUILD)/gen/seccomp_program.inc
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

# `make install` lays out what the Debian package holds (debian/rules calls
# install-files with PREFIX=/usr), for hosts without dpkg.  With no DESTDIR
# it also creates the socket's system user (systemd-sysusers).  An existing
# /etc/default/gaol is kept.
SYSCONFDIR     ?= /etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR    ?= $(PREFIX)/lib/sysusers.d
MANDIR         ?= $(PREFIX)/share/man
install: all
	$(MAKE) install-files
install-files: $(BUILD)/gaol-fcgi $(BUILD)/gaol-run
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/gaol \
	           $(DESTDIR)$(SYSCONFDIR)/nginx/snippets $(DESTDIR)$(SYSCONFDIR)/default \
	           $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
	           $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(BUILD)/gaol-fcgi $(BUILD)/gaol-run $(DESTDIR)$(PREFIX)/bin/
	cp -R langs $(DESTDIR)$(PREFIX)/share/gaol/
	find $(DESTDIR)$(PREFIX)/share/gaol/langs -name .gitignore -delete
	install -m 0644 nginx/gaol-http.conf nginx/gaol-locations.conf $(DESTDIR)$(SYSCONFDIR)/nginx/snippets/
	install -m 0755 nginx/prefix.sh $(DESTDIR)$(PREFIX)/share/gaol/nginx-prefix.sh
	install -m 0644 nginx/judge0-auth.conf $(DESTDIR)$(PREFIX)/share/gaol/judge0-auth.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/gaol ] || \
	  install -m 0644 systemd/gaol.default $(DESTDIR)$(SYSCONFDIR)/default/gaol
	for u in systemd/*.service systemd/*.socket; do \
	  sed 's|@PREFIX@|$(PREFIX)|g' $$u > $(DESTDIR)$(SYSTEMDUNITDIR)/$$(basename $$u); \
	  chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$(basename $$u); \
	done
	install -m 0644 systemd/gaol.sysusers $(DESTDIR)$(SYSUSERSDIR)/gaol.conf
	install -m 0644 docs/man/gaol-run.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 docs/man/gaol.7 $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 docs/man/gaol-fcgi.8 $(DESTDIR)$(MANDIR)/man8/
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then \
	  systemd-sysusers $(SYSUSERSDIR)/gaol.conf; fi

# ---------------------------------------------------------------- package
# `make deb`: build/gaol_<version>_<arch>.deb with dpkg-buildpackage, in a
# copy of the tree under /tmp (dpkg-buildpackage writes its results to the
# parent directory, which must not be the repository's), then lintian on it
# (errors fail; warnings are fixed or overridden in
# debian/gaol.lintian-overrides, each with its reason).  The copy has no
# .git: it gets a VERSION file (version, build) and a changelog entry with
# that version, so the package's version and what the binaries report are
# the checkout's.
DEPS_PACKAGE := debhelper dpkg-dev fakeroot lintian
deps-package: deps-build
	$(call apt_missing,$(DEPS_PACKAGE))
deb: deps-package
	@set -e; v='$(GAOL_VERSION)'; b='$(GAOL_BUILD)'; \
	tmp=$$(mktemp -d /tmp/gaol-deb.XXXXXX); trap 'rm -rf "$$tmp"' EXIT; \
	src=$$tmp/gaol-$$v; mkdir -p $$src; \
	if git rev-parse --show-toplevel >/dev/null 2>&1; then \
	  git ls-files -z --cached --others --exclude-standard --deduplicate | \
	    tar -c --null --ignore-failed-read -T - 2>/dev/null | tar -x -C $$src; \
	else tar -c --exclude=./build --exclude=./build-san . | tar -x -C $$src; fi; \
	printf '%s\n%s\n' "$$v" "$$b" > $$src/VERSION; \
	if [ "$$v" != "$$(dpkg-parsechangelog -l debian/changelog -SVersion)" ]; then \
	  { printf 'gaol (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- %s  %s\n\n' \
	      "$$v" "$$b" "$$(dpkg-parsechangelog -l debian/changelog -SMaintainer)" "$$(date -R)"; \
	    cat debian/changelog; } > $$src/debian/changelog; \
	fi; \
	(cd $$src && dpkg-buildpackage -b -us -uc) > $$tmp/build.log 2>&1 || \
	  { tail -n 60 $$tmp/build.log; echo "deb: dpkg-buildpackage failed" >&2; exit 1; }; \
	mkdir -p $(BUILD); rm -f $(BUILD)/gaol_*.deb; cp $$tmp/gaol_*.deb $(BUILD)/; \
	deb=$$(ls $(BUILD)/gaol_*.deb); echo "deb: $$deb"; \
	lintian --fail-on error --display-info $$deb; echo "lintian: no errors"

# The package as installed (tests/package/installed.sh): dpkg -i into an
# overlay of this host's root in private namespaces, a real request through
# Debian's nginx with the snippets included, the units' own ExecStart lines
# (systemd is not PID 1 there), dpkg --purge, and the host left as it was.
# Only what this test needs: not every language's toolchain (make deps).
test-package: deps-package
	$(call apt_missing,$(DEPS_RUN) curl python3 man-db)
	$(MAKE) deb
	tests/package/deps_check.sh
	tests/package/install_layout.sh $$(ls $(BUILD)/gaol_*.deb)
	tests/package/installed.sh $$(ls $(BUILD)/gaol_*.deb)

clean:
	rm -rf build build-san
