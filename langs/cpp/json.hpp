// json.hpp: nlohmann/json for the checkers of POST /run.
//
// Codebattle's generated C++ checkers start with `#include "../json.hpp"`
// (the single-header nlohmann/json beside check/).  gaol uses Debian's
// nlohmann-json3-dev instead of a vendored copy; this file only forwards.
#ifndef GAOL_JSON_HPP
#define GAOL_JSON_HPP
#include <nlohmann/json.hpp>
#endif
