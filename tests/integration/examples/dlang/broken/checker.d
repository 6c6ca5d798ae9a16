// a + b, with gaol's record helper (check/gaol_records.d): one record per
// call, one per line.
static import solution;
import gaol_records;

void main() {
    auto records = Records.open();
    records.check(() => solution.solution(1, 2));
    records.check(() => solution.solution(-5, 5));
    records.check(() => solution.solution(4000000000, 4000000000));
    records.finish();
}
