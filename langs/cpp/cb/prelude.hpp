// prelude.hpp: the environment of Codebattle's current C++ checkers.
//
// Since 2026-05 Codebattle's generated checker.cpp (apps/runner/priv/
// templates/cpp.eex) includes only "solution.cpp" and calls three things its
// image supplies: RunTest(results, buffer, fn) once per assert, SendError(
// results, what) when an assert throws, and, through them, cb::emit, which
// writes a value as JSON.  The image force-includes its prelude (with
// <bits/stdc++.h> and `using namespace std`) and links a prebuilt runtime.
// This is gaol's own equivalent: `make test` forces pch/cb.hpp (or run.hpp), which
// includes this file, and links cb/runtime.o (both built by `make prepare`).
//
// Records, one per line, as the parser (output_parser_v2.ex) reads them:
//   {"type":"result","value":<json>,"output":"<printed>","time":"0.0000123"}
//   {"type":"error","value":"<what()>"}
// Doubles are written shortest-exact with at least one decimal ("3.0"); NaN
// and infinities, which JSON lacks, as null.
#ifndef GAOL_CB_PRELUDE_HPP
#define GAOL_CB_PRELUDE_HPP

#include <bits/stdc++.h>

using namespace std;

namespace cb {

// Every overload is declared before any template body, so that a nested
// container finds the overload of its element type at instantiation.
void emit_string(std::ostream &o, const char *s, std::size_t n);
void emit(std::ostream &o, double v);
void emit(std::ostream &o, bool v);
void emit(std::ostream &o, long long v);
void emit(std::ostream &o, unsigned long long v);
inline void emit(std::ostream &o, int v) { emit(o, static_cast<long long>(v)); }
inline void emit(std::ostream &o, short v) { emit(o, static_cast<long long>(v)); }
inline void emit(std::ostream &o, long v) { emit(o, static_cast<long long>(v)); }
inline void emit(std::ostream &o, unsigned v) { emit(o, static_cast<unsigned long long>(v)); }
inline void emit(std::ostream &o, unsigned short v) { emit(o, static_cast<unsigned long long>(v)); }
inline void emit(std::ostream &o, unsigned long v) { emit(o, static_cast<unsigned long long>(v)); }
inline void emit(std::ostream &o, float v) { emit(o, static_cast<double>(v)); }
inline void emit(std::ostream &o, long double v) { emit(o, static_cast<double>(v)); }
inline void emit(std::ostream &o, const std::string &v) { emit_string(o, v.data(), v.size()); }
inline void emit(std::ostream &o, std::string_view v) { emit_string(o, v.data(), v.size()); }
inline void emit(std::ostream &o, const char *v) { emit_string(o, v, std::strlen(v)); }

template <typename T> void emit(std::ostream &o, const std::vector<T> &v);
template <typename T> void emit(std::ostream &o, const std::list<T> &v);
template <typename T> void emit(std::ostream &o, const std::set<T> &v);
template <typename V> void emit(std::ostream &o, const std::map<std::string, V> &m);
template <typename V> void emit(std::ostream &o, const std::unordered_map<std::string, V> &m);
template <typename A, typename B> void emit(std::ostream &o, const std::pair<A, B> &p);

template <typename It> void emit_array(std::ostream &o, It first, It last)
{
	o << '[';
	for (It it = first; it != last; ++it) {
		if (it != first)
			o << ',';
		emit(o, *it);
	}
	o << ']';
}

template <typename It> void emit_object(std::ostream &o, It first, It last)
{
	o << '{';
	for (It it = first; it != last; ++it) {
		if (it != first)
			o << ',';
		emit_string(o, it->first.data(), it->first.size());
		o << ':';
		emit(o, it->second);
	}
	o << '}';
}

template <typename T> void emit(std::ostream &o, const std::vector<T> &v) { emit_array(o, v.begin(), v.end()); }
template <typename T> void emit(std::ostream &o, const std::list<T> &v) { emit_array(o, v.begin(), v.end()); }
template <typename T> void emit(std::ostream &o, const std::set<T> &v) { emit_array(o, v.begin(), v.end()); }
template <typename V> void emit(std::ostream &o, const std::map<std::string, V> &m) { emit_object(o, m.begin(), m.end()); }
template <typename V> void emit(std::ostream &o, const std::unordered_map<std::string, V> &m) { emit_object(o, m.begin(), m.end()); }
template <typename A, typename B> void emit(std::ostream &o, const std::pair<A, B> &p)
{
	o << '[';
	emit(o, p.first);
	o << ',';
	emit(o, p.second);
	o << ']';
}

// The common ones are instantiated once, in runtime.o.
extern template void emit(std::ostream &, const std::vector<int> &);
extern template void emit(std::ostream &, const std::vector<long long> &);
extern template void emit(std::ostream &, const std::vector<double> &);
extern template void emit(std::ostream &, const std::vector<bool> &);
extern template void emit(std::ostream &, const std::vector<std::string> &);
extern template void emit(std::ostream &, const std::vector<std::vector<int>> &);
extern template void emit(std::ostream &, const std::vector<std::vector<std::string>> &);
extern template void emit(std::ostream &, const std::map<std::string, int> &);
extern template void emit(std::ostream &, const std::map<std::string, std::string> &);

} // namespace cb

// One result record: the value through emit_value, the output the call
// printed (taken from buffer_, which is emptied), the call's time.
void record_result_impl(std::vector<std::string> &finalResults_, std::stringstream &buffer_,
			std::chrono::duration<double> elapsed,
			void (*emit_value)(std::stringstream &, const void *), const void *result);
void SendError(std::vector<std::string> &finalResults_, const char *what);

// Times one call and records its result.  Only this small template is
// instantiated per assert; the formatting is in runtime.o.
template <typename Fn>
void RunTest(std::vector<std::string> &finalResults_, std::stringstream &buffer_, Fn &&fn)
{
	auto start = std::chrono::steady_clock::now();
	auto result = fn();
	std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
	using R = decltype(result);
	record_result_impl(finalResults_, buffer_, elapsed,
			   [](std::stringstream &o, const void *p) { cb::emit(o, *static_cast<const R *>(p)); },
			   &result);
}

#endif
