// An error returned by one call is that call's error record; the others go on.
const solution = @import("solution.zig");
const gaol = @import("gaol_records.zig");

pub fn main() void {
    var records = gaol.Records.open();
    _ = records.check(solution.solution, .{ 6, 3 });
    _ = records.check(solution.solution, .{ 1, 0 });
    _ = records.check(solution.solution, .{ 9, 3 });
    records.finish();
}
