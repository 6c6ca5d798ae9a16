// a + b, checked as Codebattle's current generated C++ checkers do it
// (apps/runner/priv/templates/cpp.eex since 2026-05): only "solution.cpp" is
// included; RunTest and SendError come from the image's prelude.
#include "solution.cpp"

int main() {
  std::stringstream buffer_;
  std::streambuf * oldBuf_ = std::cout.rdbuf(buffer_.rdbuf());
  std::vector<std::string> finalResults_;

  try {
    RunTest(finalResults_, buffer_, [&]{ return solution(1, 2); });
    RunTest(finalResults_, buffer_, [&]{ return solution(-5, 5); });
    RunTest(finalResults_, buffer_, [&]{ return solution(4000000000LL, 4000000000LL); });
  } catch (const std::exception& e) {
    SendError(finalResults_, e.what());
  }

  std::cout.rdbuf(oldBuf_);
  for (auto const& s : finalResults_) std::cout << s << "\n";
  std::cout << buffer_.str() << "\n";
}
