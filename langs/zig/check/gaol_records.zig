//! gaol_records.zig: write a Codebattle Zig checker in a few lines.
//!
//! A checker for POST /run (lang_slug "zig") is check/checker.zig, which
//! imports check/solution.zig and this file.  It prints one Codebattle
//! record per call, one JSON object per line:
//!
//!     {"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
//!     {"type":"error","time":"0.0000040","value":"DivisionByZero","output":""}
//!
//! With this file a checker is:
//!
//!     const solution = @import("solution.zig");
//!     const gaol = @import("gaol_records.zig");
//!
//!     pub fn main() void {
//!         var records = gaol.Records.open(); // captures stdout from here
//!         _ = records.check(solution.solution, .{ 1, 2 });
//!         _ = records.check(solution.solution, .{ 10, 20 });
//!         records.finish();
//!     }
//!
//! check(f, args) calls f with args once and prints its record at once (so
//! the records before a crash are kept):
//! - "result" with the returned value as std.json.stringify writes it
//!   (integers, floats, bool, optionals, []const u8 as strings, slices,
//!   arrays and structs), or "error" with the name of the error f returned
//!   (an error union's error: "DivisionByZero").  A panic (integer division
//!   by zero, an index out of bounds, unreachable) ends the program: the
//!   records before it are out already;
//! - "time": the call's wall time in seconds, a string with 7 decimals;
//! - "output": what the call wrote to stdout by any means (std.io's stdout,
//!   child processes) since the previous record: fd 1 points at an unlinked
//!   temporary file while the records are open, and they go to a private
//!   duplicate of the real stdout.
//! Records are plain ASCII: other characters are \u-escaped.
//! result(value) and error(name) print a record without calling anything.
//! Written for Zig 0.14's standard library.
const std = @import("std");
const posix = std.posix;

pub const Records = struct {
    out: posix.fd_t,
    capture: posix.fd_t,
    allocator: std.mem.Allocator = std.heap.page_allocator,

    /// Points fd 1 at a temporary file until finish().
    pub fn open() Records {
        const out = posix.dup(1) catch @panic("gaol_records: dup stdout");
        var name_buf: [64]u8 = undefined;
        const name = std.fmt.bufPrintZ(&name_buf, "/tmp/gaol-out-{d}", .{std.os.linux.getpid()}) catch unreachable;
        const fd = posix.openZ(name, .{ .ACCMODE = .RDWR, .CREAT = true, .TRUNC = true }, 0o600) catch
            @panic("gaol_records: cannot capture stdout");
        posix.unlinkZ(name) catch {};
        posix.dup2(fd, 1) catch @panic("gaol_records: dup2");
        return .{ .out = out, .capture = fd };
    }

    /// Calls f with args; prints a "result" or "error" record; true when f
    /// returned a value.
    pub fn check(self: *Records, f: anytype, args: anytype) bool {
        const start = std.time.nanoTimestamp();
        const value = @call(.auto, f, args);
        switch (@typeInfo(@TypeOf(value))) {
            .error_union => {
                if (value) |v| {
                    self.emit("result", v, start);
                    return true;
                } else |err| {
                    self.emit("error", @as([]const u8, @errorName(err)), start);
                    return false;
                }
            },
            else => {
                self.emit("result", value, start);
                return true;
            },
        }
    }

    pub fn result(self: *Records, value: anytype) void {
        self.emit("result", value, std.time.nanoTimestamp());
    }

    pub fn @"error"(self: *Records, message: []const u8) void {
        self.emit("error", message, std.time.nanoTimestamp());
    }

    /// Puts stdout back; what was printed after the last record goes out as is.
    pub fn finish(self: *Records) void {
        if (self.out < 0) return;
        const rest = self.take();
        defer self.allocator.free(rest);
        posix.dup2(self.out, 1) catch {};
        posix.close(self.out);
        self.out = -1;
        writeAll(1, rest);
    }

    fn take(self: *Records) []u8 {
        const st = posix.fstat(self.capture) catch return self.allocator.alloc(u8, 0) catch unreachable;
        const size: usize = @intCast(@max(st.size, 0));
        const buf = self.allocator.alloc(u8, size) catch @panic("gaol_records: out of memory");
        const n = posix.pread(self.capture, buf, 0) catch 0;
        posix.ftruncate(self.capture, 0) catch {};
        posix.lseek_SET(self.capture, 0) catch {}; // fd 1 shares this offset
        const text = buf[0..n];
        // std.json wants valid UTF-8: anything else becomes '?'
        if (!std.unicode.utf8ValidateSlice(text)) {
            for (text) |*c| {
                if (c.* >= 0x80) c.* = '?';
            }
        }
        return text;
    }

    fn emit(self: *Records, kind: []const u8, value: anytype, start: i128) void {
        const ns = std.time.nanoTimestamp() - start;
        const output = self.take();
        defer self.allocator.free(output);
        var line = std.ArrayList(u8).init(self.allocator);
        defer line.deinit();
        const w = line.writer();
        const opts: std.json.StringifyOptions = .{ .escape_unicode = true };
        w.writeAll("{\"type\":") catch return;
        std.json.stringify(kind, opts, w) catch return;
        w.print(",\"time\":\"{d:.7}\",\"value\":", .{@as(f64, @floatFromInt(ns)) / 1e9}) catch return;
        std.json.stringify(value, opts, w) catch return;
        w.writeAll(",\"output\":") catch return;
        std.json.stringify(@as([]const u8, output), opts, w) catch return;
        w.writeAll("}\n") catch return;
        writeAll(self.out, line.items);
    }
};

fn writeAll(fd: posix.fd_t, bytes: []const u8) void {
    var rest = bytes;
    while (rest.len > 0) {
        const n = posix.write(fd, rest) catch return;
        if (n == 0) return;
        rest = rest[n..];
    }
}
