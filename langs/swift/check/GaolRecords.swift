// GaolRecords.swift: write a Codebattle Swift checker in a few lines.
//
// A checker for POST /run (lang_slug "swift") is check/checker.swift with an
// @main type, compiled with check/solution.swift and this file.  It prints
// one Codebattle record per call, one JSON object per line:
//
//   {"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
//   {"type":"error","time":"0.0000040","value":"division by zero","output":""}
//
// With this file a checker is:
//
//   @main
//   struct Checker {
//       static func main() {
//           let records = GaolRecords()          // captures stdout from here
//           records.check { solution(1, 2) }
//           records.check { solution(10, 20) }
//           records.finish()
//       }
//   }
//
// check { ... } calls the closure once and prints its record at once (so the
// records before a crash are kept):
// - "result" with the returned value as JSONEncoder writes it (any
//   Encodable: numbers, String, Bool, arrays, dictionaries, Optional,
//   Codable structs; NaN and infinities as the strings "NaN", "Infinity",
//   "-Infinity"), or "error" with the Swift error the closure threw
//   (String(describing:)).  A runtime trap (integer division by zero, an
//   index out of range) ends the program: the records before it are out
//   already;
// - "time": the call's wall time in seconds, a string with 7 decimals;
// - "output": what the call wrote to stdout by any means (print, FileHandle,
//   child processes) since the previous record: fd 1 points at an unlinked
//   temporary file while the records are open, and they go to a private
//   duplicate of the real stdout.
// Records are plain ASCII: other characters are \u-escaped.
// result(value) and error(message) print a record without calling anything.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

private struct GaolAnyEncodable: Encodable {
    let encodeValue: (Encoder) throws -> Void
    init<T: Encodable>(_ value: T) { encodeValue = value.encode }
    func encode(to encoder: Encoder) throws { try encodeValue(encoder) }
}

final class GaolRecords {
    private var outFd: Int32 = -1
    private var captureFd: Int32 = -1
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.nonConformingFloatEncodingStrategy =
            .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        if #available(macOS 10.15, *) {
            e.outputFormatting = [.withoutEscapingSlashes]
        }
        return e
    }()

    /// Points fd 1 at a temporary file until finish().
    init() {
        fflush(stdout)
        outFd = dup(1)
        var template = Array("/tmp/gaol-out-XXXXXX".utf8CString)
        captureFd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if outFd < 0 || captureFd < 0 {
            fputs("gaol_records: cannot capture stdout\n", stderr)
            exit(1)
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        dup2(captureFd, 1)
    }

    /// Calls f, prints a "result" or "error" record; true when f returned.
    @discardableResult
    func check<T: Encodable>(_ f: () throws -> T) -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        let value: T
        do {
            value = try f()
        } catch {
            emit("error", quote(String(describing: error)), start)
            return false
        }
        guard let json = encode(value) else {
            emit("error", quote("result not serialisable"), start)
            return false
        }
        emit("result", json, start)
        return true
    }

    func result<T: Encodable>(_ value: T) {
        emit("result", encode(value) ?? "null", DispatchTime.now().uptimeNanoseconds)
    }

    func error(_ message: String) {
        emit("error", quote(message), DispatchTime.now().uptimeNanoseconds)
    }

    /// Puts stdout back; what was printed after the last record goes out as is.
    @discardableResult
    func finish() -> Int32 {
        if outFd < 0 { return 0 }
        let rest = take()
        dup2(outFd, 1)
        close(outFd)
        outFd = -1
        writeAll(1, rest)
        return 0
    }

    private func encode<T: Encodable>(_ value: T) -> String? {
        // wrapped in an array: top-level fragments are not every JSONEncoder's
        guard let data = try? encoder.encode([GaolAnyEncodable(value)]),
              let text = String(data: data, encoding: .utf8), text.count >= 2
        else { return nil }
        return String(text.dropFirst().dropLast())
    }

    private func quote(_ s: String) -> String {
        return encode(s) ?? "\"\""
    }

    private func take() -> String {
        fflush(stdout)
        let size = lseek(captureFd, 0, SEEK_END)
        var bytes = [UInt8](repeating: 0, count: max(Int(size), 0))
        if size > 0 {
            let n = pread(captureFd, &bytes, bytes.count, 0)
            bytes = Array(bytes.prefix(max(n, 0)))
        }
        _ = ftruncate(captureFd, 0)
        lseek(captureFd, 0, SEEK_SET)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func emit(_ type: String, _ valueJson: String, _ start: UInt64) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let line = "{\"type\":" + quote(type) + ",\"time\":\"" + String(format: "%.7f", seconds)
            + "\",\"value\":" + valueJson + ",\"output\":" + quote(take()) + "}\n"
        writeAll(outFd, ascii(line))
    }

    private func ascii(_ s: String) -> String {
        var out = ""
        for unit in s.utf16 {
            if unit < 0x7f {
                out.unicodeScalars.append(Unicode.Scalar(unit)!)
            } else {
                out += String(format: "\\u%04x", unit)
            }
        }
        return out
    }

    private func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBufferPointer { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { break }
            offset += n
        }
    }
}
