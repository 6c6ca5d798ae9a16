const std = @import("std");

pub fn solution(a: i64, b: i64) !i64 {
    std.io.getStdOut().writer().print("dividing {d} by {d}\n", .{ a, b }) catch {};
    if (b == 0) return error.DivisionByZero;
    return @divTrunc(a, b);
}
