// A panic in one call (here rust's own "attempt to divide by zero") is that
// call's error record; the others go on.
mod gaol_records;
mod solution;

fn main() {
    let mut records = gaol_records::Records::new();
    records.check(|| solution::solution(6, 3));
    records.check(|| solution::solution(1, 0));
    records.check(|| solution::solution(9, 3));
    records.finish();
}
