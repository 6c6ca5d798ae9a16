/**
 * gaol_records: write a Codebattle D checker in a few lines.
 *
 * A checker for POST /run (lang_slug "dlang") is check/checker.d, compiled
 * with check/solution.d (module `solution`) and whatever it imports from
 * check/ (this module, or Codebattle's cb_runtime).  It prints one Codebattle
 * record per call, one JSON object per line:
 *
 * ---
 * {"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
 * {"type":"error","time":"0.0000040","value":"division by zero","output":""}
 * ---
 *
 * With this module a checker is:
 *
 * ---
 * static import solution;
 * import gaol_records;
 *
 * void main() {
 *     auto records = Records.open();          // captures stdout from here
 *     records.check(() => solution.solution(1, 2));
 *     records.check(() => solution.solution(10, 20));
 *     records.finish();
 * }
 * ---
 *
 * check(fn) calls fn once and prints its record at once (so the records of
 * the calls before a crash are not lost):
 * - "result" with the returned value as JSON (integers, floating point,
 *   bool, characters and strings, arrays, associative arrays (keys written
 *   as strings), structs as objects of their fields, classes as their
 *   toString, std.json's JSONValue as it writes itself; NaN and infinities
 *   as the strings "NaN", "Infinity", "-Infinity"), or "error" with the
 *   message of what fn threw (Exception
 *   or Error, RangeError and AssertError included: the class name when the
 *   message is empty).  A hardware fault (integer division by zero is SIGFPE
 *   in D) ends the program: the records before it are out already;
 * - "time": the call's wall time in seconds, a string with 7 decimals;
 * - "output": what the call wrote to stdout by any means (writeln, printf,
 *   core.stdc.stdio, child processes) since the previous record: fd 1 points
 *   at an unlinked temporary file while the records are open, and they go to
 *   a private duplicate of the real stdout.
 * Records are plain ASCII: other characters are \u-escaped.
 * result(value) and error(message) print a record without calling anything.
 *
 * Written on druntime and the C library only: std.json and std.format would
 * double the time every checker takes to compile.
 */
module gaol_records;

import core.stdc.stdio : SEEK_END, SEEK_SET, _IOLBF, fflush, setvbuf, snprintf, stdout;
import core.stdc.stdlib : strtod;
import core.sys.posix.stdlib : mkstemp;
import core.sys.posix.unistd : close, dup2, ftruncate, lseek, pread, unlink, write;
import posix = core.sys.posix.unistd;
import core.time : MonoTime;

struct Records {
    private int outFd = -1;

    /// Points fd 1 at a temporary file until finish().
    static Records open() {
        Records r;
        flushAll();
        r.outFd = posix.dup(1);
        char[21] path = "/tmp/gaol-out-XXXXXX\0";
        int fd = mkstemp(path.ptr);
        if (r.outFd < 0 || fd < 0)
            throw new Exception("gaol_records: cannot capture stdout");
        unlink(path.ptr);
        dup2(fd, 1);
        close(fd);
        setvbuf(stdout, null, _IOLBF, 0);   // lines in the order they were printed
        return r;
    }

    /// Calls fn, prints a "result" or "error" record; true when fn returned.
    bool check(F)(scope F fn) {
        auto start = MonoTime.currTime;
        char[] json;
        try {
            static if (is(typeof(fn()) == void)) {
                fn();
                json = "null".dup;
            } else {
                writeJSON(json, fn());
            }
        } catch (Throwable e) {
            json.length = 0;
            writeJSON(json, message(e));
            emit("error", json, start);
            return false;
        }
        emit("result", json, start);
        return true;
    }

    /// Prints a "result" record of value.
    void result(T)(T value) {
        char[] json;
        writeJSON(json, value);
        emit("result", json, MonoTime.currTime);
    }

    /// Prints an "error" record.
    void error(string message) {
        char[] json;
        writeJSON(json, message);
        emit("error", json, MonoTime.currTime);
    }

    /// Puts stdout back; what was printed after the last record goes out as is.
    int finish() {
        if (outFd < 0)
            return 0;
        auto rest = take();
        dup2(outFd, 1);
        close(outFd);
        outFd = -1;
        writeAll(1, rest);
        return 0;
    }

    private char[] take() {
        flushAll();
        auto size = lseek(1, 0, SEEK_END);
        char[] buf;
        if (size > 0) {
            buf.length = cast(size_t) size;
            auto n = pread(1, buf.ptr, buf.length, 0);
            buf.length = n > 0 ? cast(size_t) n : 0;
        }
        ftruncate(1, 0);
        lseek(1, 0, SEEK_SET);
        return buf;
    }

    private void emit(string type, const(char)[] valueJSON, MonoTime start) {
        auto seconds = (MonoTime.currTime - start).total!"nsecs" / 1e9;
        char[] line;
        line ~= `{"type":`;
        writeJSON(line, type);
        line ~= `,"time":"`;
        line ~= fmt("%.7f", seconds);
        line ~= `","value":`;
        line ~= valueJSON;
        line ~= `,"output":`;
        writeJSON(line, cast(string) take());
        line ~= "}\n";
        writeAll(outFd, line);
    }
}

/// stdout of std.stdio and of the C library, flushed.
void flushAll() {
    static if (__traits(compiles, { import std.stdio : stdout; stdout.flush(); })) {
        import std.stdio : stdio = stdout;
        stdio.flush();
    }
    fflush(null);
}

private void writeAll(int fd, const(char)[] text) {
    while (text.length > 0) {
        auto n = write(fd, text.ptr, text.length);
        if (n <= 0)
            break;
        text = text[n .. $];
    }
}

private char[] fmt(T)(const(char)* format, T value) {
    char[64] buf;
    auto n = snprintf(buf.ptr, buf.length, format, value);
    return buf[0 .. (n > 0 && n < buf.length ? n : 0)].dup;
}

string message(Throwable e) {
    return e.msg.length ? e.msg.idup : typeid(e).name;
}

/// A JSON string of UTF-8 text in plain ASCII; invalid bytes become U+FFFD.
void writeString(ref char[] buf, const(char)[] s) {
    buf ~= '"';
    size_t i = 0;
    while (i < s.length) {
        uint c = s[i];
        size_t len = 1;
        if (c >= 0x80) {
            // decode one UTF-8 sequence, strictly
            uint need = c >= 0xF0 && c <= 0xF4 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 && c < 0xE0 ? 1 : 0;
            uint cp = need == 3 ? c & 0x07 : need == 2 ? c & 0x0F : c & 0x1F;
            bool ok = need > 0 && i + need < s.length;
            if (ok)
                foreach (k; 1 .. need + 1) {
                    uint b = s[i + k];
                    if ((b & 0xC0) != 0x80) {
                        ok = false;
                        break;
                    }
                    cp = (cp << 6) | (b & 0x3F);
                }
            if (ok && ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10FFFF))
                       || (cp >= 0xD800 && cp <= 0xDFFF)))
                ok = false;
            if (ok) {
                c = cp;
                len = need + 1;
            } else {
                c = 0xFFFD;
                len = 1;
            }
        }
        if (c == '"')
            buf ~= `\"`;
        else if (c == '\\')
            buf ~= `\\`;
        else if (c == '\n')
            buf ~= `\n`;
        else if (c == '\r')
            buf ~= `\r`;
        else if (c == '\t')
            buf ~= `\t`;
        else if (c < 0x20 || c >= 0x7F) {
            if (c > 0xFFFF) {
                c -= 0x10000;
                buf ~= fmt("\\u%04x", 0xD800 + (c >> 10));
                buf ~= fmt("\\u%04x", 0xDC00 + (c & 0x3FF));
            } else {
                buf ~= fmt("\\u%04x", c);
            }
        } else
            buf ~= cast(char) c;
        i += len;
    }
    buf ~= '"';
}

/// The shortest %g form that reads back as the same double.
private char[] shortest(double d) {
    foreach (p; 15 .. 18) {
        char[40] tmp;
        auto n = snprintf(tmp.ptr, tmp.length, "%.*g", p, d);
        if (n > 0 && n < tmp.length && strtod(tmp.ptr, null) == d)
            return tmp[0 .. n].dup;
    }
    return fmt("%.17g", d);
}

/// Appends value as JSON.
void writeJSON(T)(ref char[] buf, T value) {
    static if (is(T == typeof(null))) {
        buf ~= "null";
    } else static if (is(T == struct) && __traits(identifier, T) == "JSONValue") {
        buf ~= value.toString();   // std.json's own, when a checker uses it
    } else static if (is(T == enum)) {
        static if (is(T Base == enum))
            writeJSON(buf, cast(Base) value);
    } else static if (is(T : const(char)[])) {
        if (value is null && !is(T == string))
            buf ~= "null";
        else
            writeString(buf, value);
    } else static if (is(T : const(wchar)[]) || is(T : const(dchar)[])) {
        char[] utf8;
        foreach (dchar c; value)
            encode(utf8, c);
        writeString(buf, utf8);
    } else static if (is(T == bool)) {
        buf ~= value ? "true" : "false";
    } else static if (is(T == char) || is(T == wchar) || is(T == dchar)) {
        char[] utf8;
        encode(utf8, cast(dchar) value);
        writeString(buf, utf8);
    } else static if (__traits(isFloating, T)) {
        double d = value;
        if (d != d)
            buf ~= `"NaN"`;
        else if (d == double.infinity)
            buf ~= `"Infinity"`;
        else if (d == -double.infinity)
            buf ~= `"-Infinity"`;
        else {
            auto text = shortest(d);
            buf ~= text;
            bool plain = true;
            foreach (ch; text)
                if (ch == '.' || ch == 'e' || ch == 'E')
                    plain = false;
            if (plain)
                buf ~= ".0";
        }
    } else static if (__traits(isUnsigned, T)) {
        buf ~= fmt("%llu", cast(ulong) value);
    } else static if (__traits(isIntegral, T)) {
        buf ~= fmt("%lld", cast(long) value);
    } else static if (is(T == V[K], V, K)) {
        buf ~= '{';
        bool first = true;
        foreach (k, v; value) {
            if (!first)
                buf ~= ',';
            first = false;
            char[] key;
            writeJSON(key, k);
            if (key.length && key[0] == '"')
                buf ~= key;
            else
                writeString(buf, key);
            buf ~= ':';
            writeJSON(buf, v);
        }
        buf ~= '}';
    } else static if (is(T == E[], E) || is(T == E[n], E, size_t n)) {
        buf ~= '[';
        foreach (i, v; value) {
            if (i > 0)
                buf ~= ',';
            writeJSON(buf, v);
        }
        buf ~= ']';
    } else static if (is(T == struct)) {
        buf ~= '{';
        foreach (i, field; value.tupleof) {
            if (i > 0)
                buf ~= ',';
            writeString(buf, __traits(identifier, T.tupleof[i]));
            buf ~= ':';
            writeJSON(buf, field);
        }
        buf ~= '}';
    } else static if (is(T == class) || is(T == interface)) {
        if (value is null)
            buf ~= "null";
        else
            writeString(buf, value.toString());
    } else static if (is(T == P*, P)) {
        if (value is null)
            buf ~= "null";
        else
            writeJSON(buf, *value);
    } else {
        static assert(0, "gaol_records: cannot write " ~ T.stringof ~ " as JSON");
    }
}

private void encode(ref char[] buf, dchar c) {
    if (c < 0x80)
        buf ~= cast(char) c;
    else if (c < 0x800) {
        buf ~= cast(char)(0xC0 | (c >> 6));
        buf ~= cast(char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        buf ~= cast(char)(0xE0 | (c >> 12));
        buf ~= cast(char)(0x80 | ((c >> 6) & 0x3F));
        buf ~= cast(char)(0x80 | (c & 0x3F));
    } else {
        buf ~= cast(char)(0xF0 | (c >> 18));
        buf ~= cast(char)(0x80 | ((c >> 12) & 0x3F));
        buf ~= cast(char)(0x80 | ((c >> 6) & 0x3F));
        buf ~= cast(char)(0x80 | (c & 0x3F));
    }
}
