// a + b, with gaol's record helper (check/gaol_records.rs): one record per
// call, one per line.
mod gaol_records;
mod solution;

fn main() {
    let mut records = gaol_records::Records::new();
    records.check(|| solution::solution(1, 2));
    records.check(|| solution::solution(-5, 5));
    records.check(|| solution::solution(4000000000, 4000000000));
    records.finish();
}
