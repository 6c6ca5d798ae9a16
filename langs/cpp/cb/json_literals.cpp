// nlohmann/json's two string literal operators, out of line.
//
// Debian's <nlohmann/json.hpp> defines `"..."_json` and `"..."_json_pointer`
// as inline functions whose bodies call json::parse: every unit that includes
// the header, through a precompiled one too, then instantiates the whole
// parser at its end whether it uses them or not (0.3-0.4 s of a checker's
// build).  `make prepare` writes pch/include/nlohmann/json.hpp, Debian's
// header with the two bodies taken out (declarations left), which the
// checkers' builds find first; the definitions are here, in
// cb/libgaoljson.a, which `make test` links.
#include <nlohmann/json.hpp>

nlohmann::json nlohmann::literals::json_literals::operator""_json(const char *s, std::size_t n)
{
	return nlohmann::json::parse(s, s + n);
}

nlohmann::json::json_pointer nlohmann::literals::json_literals::operator""_json_pointer(const char *s,
										    std::size_t n)
{
	return nlohmann::json::json_pointer(std::string(s, n));
}
