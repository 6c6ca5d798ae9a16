# SPDX-License-Identifier: Apache-2.0
"""Runs last: every answer gaol-fcgi gave during the session, through
gh.request (the tests' HTTP client), left exactly one JSON line in its
stack's log, with the id the client saw in X-Request-Id and the same status
(issue 15).  Answers nginx gave itself (413 over its limit, 429, 502, 504:
no Cache-Control: no-store) never reached gaol-fcgi and are not counted."""

import pytest

import gaol_helpers as gh


@pytest.mark.last
def test_every_answer_of_the_session_left_one_log_line(stacks_started):
    problems, answers = [], 0
    for s in stacks_started:
        lines = gh.request_log_lines(s.log_path)
        for rid, method, path, status in getattr(s, "answered", []):
            answers += 1
            mine = lines.get(rid, [])
            if len(mine) != 1:
                problems.append("%s: %s %s (%d, id %s): %d log lines"
                                % (s.name, method, path[:60], status, rid, len(mine)))
            elif mine[0]["status"] != status:
                problems.append("%s: %s %s: answered %d, logged %r"
                                % (s.name, method, path[:60], status, mine[0]))
    assert answers > 0, "no answer was noted: is gh.request still the tests' client?"
    assert not problems, "%d of %d answers:\n%s" % (len(problems), answers,
                                                  "\n".join(problems[:30]))
