/**
 * cb_runtime: the helper module Codebattle's generated D checkers import
 * (`import cb_runtime;`), with the same three functions, so that those
 * checkers build here unchanged:
 *
 * - runTest(fn): calls fn with stdout captured and returns one record, a
 *   JSON object {"type":"result","value":...,"output":...,"time":"0.0000012"};
 *   what fn throws propagates to the checker (which catches it and adds
 *   errorLine(e.msg));
 * - errorLine(message): the record {"type":"error","value":message};
 * - finish(lines): prints the records, one per line.
 *
 * Values are written as gaol_records.writeJSON writes them.  New checkers
 * may prefer gaol_records, which prints each record as soon as it is made.
 */
module cb_runtime;

import core.stdc.stdio : SEEK_END, snprintf;
import core.sys.posix.stdlib : mkstemp;
import core.sys.posix.unistd : close, dup2, lseek, pread, unlink, write;
import posix = core.sys.posix.unistd;
import core.time : MonoTime;

import gaol_records : flushAll, writeJSON, writeString;

string runTest(F)(F fn) {
    flushAll();
    int saved = posix.dup(1);
    char[19] path = "/tmp/cb-out-XXXXXX\0";
    int fd = mkstemp(path.ptr);
    if (saved >= 0 && fd >= 0) {
        unlink(path.ptr);
        dup2(fd, 1);
    }
    scope (exit) {
        flushAll();
        if (saved >= 0) {
            dup2(saved, 1);
            close(saved);
        }
        if (fd >= 0)
            close(fd);
    }

    auto start = MonoTime.currTime;
    auto value = fn();
    auto took = MonoTime.currTime - start;

    flushAll();
    char[] output;
    if (fd >= 0) {
        auto size = lseek(fd, 0, SEEK_END);
        if (size > 0) {
            output.length = cast(size_t) size;
            auto n = pread(fd, output.ptr, output.length, 0);
            output.length = n > 0 ? cast(size_t) n : 0;
        }
    }
    char[32] time;
    auto n = snprintf(time.ptr, time.length, "%.7f", took.total!"nsecs" / 1e9);
    char[] rec;
    rec ~= `{"type":"result","value":`;
    writeJSON(rec, value);
    rec ~= `,"output":`;
    writeString(rec, output);
    rec ~= `,"time":"`;
    rec ~= time[0 .. n];
    rec ~= `"}`;
    return cast(string) rec;
}

string errorLine(string message) {
    char[] rec;
    rec ~= `{"type":"error","value":`;
    writeString(rec, message);
    rec ~= '}';
    return cast(string) rec;
}

void finish(string[] lines) {
    foreach (line; lines) {
        auto text = line ~ "\n";
        while (text.length > 0) {
            auto k = write(1, text.ptr, text.length);
            if (k <= 0)
                break;
            text = text[k .. $];
        }
    }
}
