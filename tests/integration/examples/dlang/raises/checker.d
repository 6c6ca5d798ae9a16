// An exception in one call is that call's error record; the others go on.
static import solution;
import gaol_records;

void main() {
    auto records = Records.open();
    records.check(() => solution.solution(6, 3));
    records.check(() => solution.solution(1, 0));
    records.check(() => solution.solution(9, 3));
    records.finish();
}
