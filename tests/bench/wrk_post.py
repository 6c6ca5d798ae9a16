#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/bench/wrk_post.py REQUEST LUA: writes wrk's script that POSTs the
JSON body in REQUEST (the benchmark's /run request), for tests/bench/run.sh
and tests/bench/throughput.sh."""
import json
import sys

body = open(sys.argv[1]).read().strip()
open(sys.argv[2], "w").write(
    'wrk.method = "POST"\n'
    'wrk.body = %s\n'
    'wrk.headers["Content-Type"] = "application/json"\n'
    '-- the first few failures are shown, so that a non-2xx count has a reason\n'
    'local shown = 0\n'
    'response = function(status, headers, body)\n'
    '  if status ~= 200 and shown < 3 then\n'
    '    shown = shown + 1\n'
    '    io.stderr:write("wrk: " .. status .. " " .. body .. "\\n")\n'
    '  end\n'
    'end\n' % json.dumps(body))
