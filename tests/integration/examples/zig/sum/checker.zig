// a + b, with gaol's record helper (check/gaol_records.zig): one record per
// call, one per line.
const solution = @import("solution.zig");
const gaol = @import("gaol_records.zig");

pub fn main() void {
    var records = gaol.Records.open();
    _ = records.check(solution.solution, .{ 1, 2 });
    _ = records.check(solution.solution, .{ -5, 5 });
    _ = records.check(solution.solution, .{ 4000000000, 4000000000 });
    records.finish();
}
