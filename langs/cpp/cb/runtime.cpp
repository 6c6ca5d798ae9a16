// runtime.cpp: the compiled half of prelude.hpp (see there), built once by
// `make prepare` into cb/runtime.o and linked into every checker.
#include "prelude.hpp"

namespace cb {

void emit_string(std::ostream &o, const char *s, std::size_t n)
{
	o << '"';
	for (std::size_t i = 0; i < n; i++) {
		unsigned char c = static_cast<unsigned char>(s[i]);
		switch (c) {
		case '"': o << "\\\""; break;
		case '\\': o << "\\\\"; break;
		case '\b': o << "\\b"; break;
		case '\f': o << "\\f"; break;
		case '\n': o << "\\n"; break;
		case '\r': o << "\\r"; break;
		case '\t': o << "\\t"; break;
		default:
			if (c < 0x20) {
				char esc[8];
				std::snprintf(esc, sizeof esc, "\\u%04x", c);
				o << esc;
			} else {
				o << static_cast<char>(c);
			}
		}
	}
	o << '"';
}

void emit(std::ostream &o, bool v) { o << (v ? "true" : "false"); }
void emit(std::ostream &o, long long v) { o << v; }
void emit(std::ostream &o, unsigned long long v) { o << v; }

void emit(std::ostream &o, double v)
{
	char text[64];
	auto [end, ec] = std::to_chars(text, text + sizeof text, v);
	if (!std::isfinite(v) || ec != std::errc()) {
		o << "null";
		return;
	}
	std::string_view s(text, static_cast<std::size_t>(end - text));
	o << s;
	// 3.0 stays a float in JSON readers that tell the two apart.
	if (s.find_first_of(".eE") == std::string_view::npos)
		o << ".0";
}

template void emit(std::ostream &, const std::vector<int> &);
template void emit(std::ostream &, const std::vector<long long> &);
template void emit(std::ostream &, const std::vector<double> &);
template void emit(std::ostream &, const std::vector<bool> &);
template void emit(std::ostream &, const std::vector<std::string> &);
template void emit(std::ostream &, const std::vector<std::vector<int>> &);
template void emit(std::ostream &, const std::vector<std::vector<std::string>> &);
template void emit(std::ostream &, const std::map<std::string, int> &);
template void emit(std::ostream &, const std::map<std::string, std::string> &);

} // namespace cb

void record_result_impl(std::vector<std::string> &finalResults_, std::stringstream &buffer_,
			std::chrono::duration<double> elapsed,
			void (*emit_value)(std::stringstream &, const void *), const void *result)
{
	std::cout.flush();
	std::string output = buffer_.str();
	buffer_.str("");
	buffer_.clear();
	char time[32];
	std::snprintf(time, sizeof time, "%.7f", elapsed.count());
	std::stringstream rec;
	rec << "{\"type\":\"result\",\"value\":";
	emit_value(rec, result);
	rec << ",\"output\":";
	cb::emit_string(rec, output.data(), output.size());
	rec << ",\"time\":\"" << time << "\"}";
	finalResults_.push_back(rec.str());
}

void SendError(std::vector<std::string> &finalResults_, const char *what)
{
	std::stringstream rec;
	rec << "{\"type\":\"error\",\"value\":";
	cb::emit_string(rec, what, std::strlen(what));
	rec << "}";
	finalResults_.push_back(rec.str());
}
