// An exception in one call is that call's error record; the others go on.
#include "gaol_records.hpp"
#include "solution.cpp"

int main() {
    gaol::Records records;
    records.check([] { return solution(6, 3); });
    records.check([] { return solution(1, 0); });
    records.check([] { return solution(9, 3); });
    return records.finish();
}
