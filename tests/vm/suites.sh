#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/vm/suites.sh: what `make test-vm` runs inside the VM (as root, in
# the checkout's directory; tests/vm/README.md).  Every suite runs even
# when one before it failed; at the end a table of each suite's result,
# counts and time; the exit status is 1 when any failed.
#   make all             up to date (the host built it; the guest checks)
#   gaol-fcgi --check    the v2 host's start-up report
#   unit                 build/unit-tests
#   isolation            tests/isolation, all of it
#   integration          the integration files that run every language's
#                        /run and /evaluate paths and the service's answers
#                        ($VM_INTEGRATION below), for GAOL_VM_LANGS (python c
#                        js by default: not C++'s toolchain-heavy builds,
#                        tests/vm/README.md says why; tests/vm/vm_select.py
#                        deselects
#                        the other languages' tests, tests/vm/timing-bound.txt
#                        and tests/vm/host-only.txt),
#                        test_zz_host_left_clean.py last (it checks the
#                        session it ran in).  Not the whole of
#                        tests/integration: its 492 tests for these languages
#                        outlast 40 minutes under TCG (the first test-vm was
#                        cut by its 40-minute guard at 92 %); the host runs
#                        all of it in `make test`; the rest (pool faults and
#                        shutdown, clients, cache, metrics) is tested on v1
#                        only.
# pytest -v: each test's result is in the log as it ends (a guard timeout
# still leaves the names of the failures).
set -u
BUILD=${BUILD:-build}
export BUILD
export PYTHONPATH="$PWD/tests/vm${PYTHONPATH:+:$PYTHONPATH}"
PYTEST="/usr/bin/python3 -m pytest -p no:cacheprovider -p vm_select -v -rfEs --durations=15"
log=/run/vm-out
summary=$(mktemp)
failed=0
t0=$(date +%s)
# The kernel's OOM reports (the tests provoke them) stay in dmesg, off the
# console, where they would cut into pytest's lines.
dmesg -n 1

# suite NAME COMMAND...: runs it, its output also in $log/NAME.log.
suite() {
  name=$1; shift
  echo; echo "==== $name: $*"
  start=$(date +%s)
  "$@" > "$log/$name.log" 2>&1 &
  pid=$!
  tail -n +1 -f --pid=$pid "$log/$name.log" 2>/dev/null
  wait $pid; rc=$?
  secs=$(( $(date +%s) - start ))
  counts=$(grep -E '^(=+ )?[0-9]+ (passed|failed|error|skipped|deselected)|^[0-9]+%: Checks' "$log/$name.log" \
           | tail -n 1 | sed 's/=//g; s/^ *//; s/ *$//')
  if [ $rc -eq 0 ]; then res=ok; else res="FAILED($rc)"; failed=1; fi
  printf '%-12s %-10s %5ss  %s\n' "$name" "$res" "$secs" "$counts" >> "$summary"
}

suite build make all
suite check "$BUILD/gaol-fcgi" --check
# Check's per-test timeouts (20 s for the toolchain probes) are the host's:
# under TCG the probes of langs_load ran past 20 s once (host loaded beside
# the VM, 2026-12-04), so they are tripled here.
suite unit env CK_TIMEOUT_MULTIPLIER=3 GAOL_LANGS_DIR="$PWD/langs" "$BUILD/unit-tests"
suite isolation $PYTEST tests/isolation
# Under TCG a first build reads its compiler and precompiled header (124-139
# MB for C++) over 9p with a cold cache: the first C++ judge build measured
# 9.3 s of CPU (near /evaluate's 10 s compile limit, RUN_EVAL_COMPILE_TIMEOUT),
# then 6.5-6.7 s; the first C++ /run of a checker with nlohmann/json 21-25 s,
# then 14-23 s (a cold one once took 59.5 s of its 60 s timeout, when those
# checkers parsed nlohmann/json per build).  tests/warm.py first makes one
# a+b /evaluate and one /run of the example of each of the guest's languages
# through gaol-run, as a host's cache is after its first requests; its
# answers are not judged.
case " ${GAOL_VM_LANGS:-python c js} " in
  *" all "*) /usr/bin/python3 tests/warm.py ;;
  *) GAOL_TEST_LANGS="${GAOL_VM_LANGS:-python c js}" /usr/bin/python3 tests/warm.py ;;
esac
VM_INTEGRATION="test_languages.py test_evaluate_languages.py test_run_outcomes.py
  test_sandbox_basics.py test_http_api.py test_evaluate.py test_cgroup_dynmods.py
  test_direct_exec.py test_build_limit.py test_keep.py test_template_mounts.py
  test_verdict_stability.py test_zz_host_left_clean.py"
suite integration $PYTEST $(for f in $VM_INTEGRATION; do printf 'tests/integration/%s ' "$f"; done)

echo
echo "==== test-vm: kernel $(uname -r), cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
cat "$summary"
echo "total: $(( $(date +%s) - t0 )) s inside the VM"
rm -f "$summary"
exit $failed
