// The header `make test` forces into every checker build (-include), and
// `make prepare` precompiles into run.hpp.gch with the same flags: the
// standard library, Codebattle's current checker environment (cb/prelude.hpp:
// RunTest, SendError, cb::emit) and, for the checkers of before 2026-05 that
// include "../json.hpp" and "../fifo_map.hpp", nlohmann/json.  Without the
// .gch the build is only slower.
#include <bits/stdc++.h>
#include <nlohmann/json.hpp>
#include "../fifo_map.hpp"
#include "../cb/prelude.hpp"
