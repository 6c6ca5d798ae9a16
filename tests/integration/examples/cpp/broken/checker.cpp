// a + b, with gaol's record helper: one record per call, one per line.
#include "gaol_records.hpp"
#include "solution.cpp"

int main() {
    gaol::Records records;
    records.check([] { return solution(1, 2); });
    records.check([] { return solution(-5, 5); });
    records.check([] { return solution(4000000000LL, 4000000000LL); });
    return records.finish();
}
