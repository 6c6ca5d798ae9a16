// The header `make test` forces into every checker build (-include), and
// `make prepare` precompiles into run.hpp.gch with the same flags: the
// standard library and nlohmann/json, as in Codebattle's C++ image.  Without
// the .gch the build is only slower.
#include <bits/stdc++.h>
#include <nlohmann/json.hpp>
#include "../fifo_map.hpp"
