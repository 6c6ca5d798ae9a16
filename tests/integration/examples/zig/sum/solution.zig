const std = @import("std");

pub fn solution(a: i64, b: i64) i64 {
    std.io.getStdOut().writer().print("adding {d} and {d}\n", .{ a, b }) catch {};
    return a + b;
}
