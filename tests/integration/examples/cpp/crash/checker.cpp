// The second call kills the program with SIGSEGV: the run's answer names it.
#include "gaol_records.hpp"
#include "solution.cpp"

int main() {
    gaol::Records records;
    records.check([] { return solution(1, 2); });
    records.check([] { return solution(-1, 1); });
    return records.finish();
}
