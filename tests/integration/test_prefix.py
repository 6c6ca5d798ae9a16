# SPDX-License-Identifier: Apache-2.0
"""nginx/README.md, "Under a prefix": GAOL_PREFIX (nginx/prefix.sh) mounts
every gaol path under the operator's prefix; the root is then not gaol's."""

import json

import gaol_helpers as gh


def test_every_path_under_the_prefix_and_none_at_the_root(make_stack):
    s = make_stack("prefix", env={"GAOL_PREFIX": "/gaol/v1"})
    r = s.get("/gaol/v1/health")
    assert r.status == 200 and r.json()["ok"] is True, r
    body = json.dumps({"language": "python", "files": [{"content": "print(input())"}],
                       "stdin": "under a prefix"}).encode()
    for path in ("/gaol/v1/execute", "/gaol/v1/api/v2/execute"):
        r = s.post(path, body)
        assert r.status == 200, r
        assert r.json()["run"]["stdout"] == "under a prefix\n", r
    r = s.get("/gaol/v1/api/v2/runtimes")
    assert r.status == 200 and any(x["language"] == "python" for x in r.json()), r
    r = s.post("/gaol/v1/run", json.dumps({"lang_slug": "python", "solution_text":
                                            gh.py_source("result = 1")}).encode())
    assert r.status == 200, r
    # gaol's own 404 under the prefix, nginx's at the root (nothing of gaol's there).
    r = s.get("/gaol/v1/nothing")
    assert r.status == 404, r
    for path in ("/execute", "/health", "/api/v2/runtimes"):
        assert s.get(path).status == 404, path
    # nginx's own 413 on Piston's path under the prefix still carries "message".
    r = s.post("/gaol/v1/api/v2/execute", b"x" * (2 << 20))
    assert r.status == 413 and r.json()["message"], r
