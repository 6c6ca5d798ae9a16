// gaol_records.go: write a Codebattle Go checker in a few lines.
//
// A checker for POST /run (lang_slug "golang") is check/checker.go, package
// main, built with check/solution.go and this file; it prints one Codebattle
// record per call, one JSON object per line:
//
//	{"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
//	{"type":"error","time":"0.0000040","value":"runtime error: integer divide by zero","output":""}
//
// With this file a checker is:
//
//	package main
//
//	func main() {
//		records := NewGaolRecords() // captures stdout from here
//		records.Check(func() any { return solution(1, 2) })
//		records.Check(func() any { return solution(10, 20) })
//		records.Finish()
//	}
//
// Check calls f once and prints its record at once (so the records of the
// calls before a crash are not lost):
//   - "result" with the returned value as encoding/json writes it (numbers,
//     strings, slices, maps, structs with exported fields), or "error" with
//     the value f panicked with: err.Error() of an error (runtime errors
//     such as "runtime error: integer divide by zero" included), the string
//     itself, else fmt.Sprint of it;
//   - "time": the call's wall time in seconds, a string with 7 decimals;
//   - "output": what the call wrote to stdout by any means (fmt.Print*,
//     os.Stdout, println to fd 1 via syscall, child processes) since the
//     previous record: fd 1 points at an unlinked temporary file while the
//     records are open, and they go to a private duplicate of the real
//     stdout.
//
// A value encoding/json refuses (NaN, a channel, a cycle) is an error
// record.  Records are plain ASCII: other characters are \u-escaped.
// Result(value) and Error(message) print a record without calling anything.
// Every name here starts with gaol or Gaol, so it does not collide with a
// checker's own.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
	"unicode/utf8"
)

// GaolRecords captures stdout and prints Codebattle records.
type GaolRecords struct {
	out     *os.File // the real stdout
	capture *os.File // the temporary file fd 1 points at
}

// NewGaolRecords points fd 1 at a temporary file until Finish.
func NewGaolRecords() *GaolRecords {
	saved, err := syscall.Dup(1)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gaol_records: dup stdout:", err)
		os.Exit(1)
	}
	syscall.CloseOnExec(saved)
	f, err := os.CreateTemp("", "gaol-out-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gaol_records: capture:", err)
		os.Exit(1)
	}
	os.Remove(f.Name())
	if err := syscall.Dup3(int(f.Fd()), 1, 0); err != nil {
		fmt.Fprintln(os.Stderr, "gaol_records: dup3:", err)
		os.Exit(1)
	}
	return &GaolRecords{out: os.NewFile(uintptr(saved), "/dev/stdout"), capture: f}
}

// Check calls f, prints a "result" or "error" record; true when f returned.
func (r *GaolRecords) Check(f func() any) (ok bool) {
	start := time.Now()
	var value any
	panicked := true
	var reason any
	func() {
		defer func() {
			if panicked {
				reason = recover()
			}
		}()
		value = f()
		panicked = false
	}()
	if panicked {
		r.emit("error", gaolQuote(gaolPanicMessage(reason)), start)
		return false
	}
	data, err := gaolMarshal(value)
	if err != nil {
		r.emit("error", gaolQuote("result not serialisable: "+err.Error()), start)
		return false
	}
	r.emit("result", data, start)
	return true
}

// Result prints a "result" record of value.
func (r *GaolRecords) Result(value any) {
	data, err := gaolMarshal(value)
	if err != nil {
		r.emit("error", gaolQuote("result not serialisable: "+err.Error()), time.Now())
		return
	}
	r.emit("result", data, time.Now())
}

// Error prints an "error" record.
func (r *GaolRecords) Error(message string) {
	r.emit("error", gaolQuote(message), time.Now())
}

// Finish puts stdout back; what was printed after the last record goes out
// as is.  Returns 0, for os.Exit.
func (r *GaolRecords) Finish() int {
	if r.out == nil {
		return 0
	}
	rest := r.take()
	syscall.Dup3(int(r.out.Fd()), 1, 0)
	io.WriteString(os.Stdout, rest)
	r.out.Close()
	r.capture.Close()
	r.out = nil
	return 0
}

func (r *GaolRecords) take() string {
	os.Stdout.Sync()
	info, err := r.capture.Stat()
	if err != nil || info.Size() == 0 {
		return ""
	}
	buf := make([]byte, info.Size())
	n, _ := r.capture.ReadAt(buf, 0)
	r.capture.Truncate(0)
	r.capture.Seek(0, io.SeekStart) // fd 1 shares this offset
	return string(buf[:n])
}

func (r *GaolRecords) emit(kind string, value []byte, start time.Time) {
	seconds := time.Since(start).Seconds()
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	b.Write(gaolQuote(kind))
	fmt.Fprintf(&b, `,"time":"%.7f","value":`, seconds)
	b.Write(value)
	b.WriteString(`,"output":`)
	b.Write(gaolQuote(r.take()))
	b.WriteString("}\n")
	r.out.Write(gaolASCII(b.Bytes()))
}

func gaolPanicMessage(p any) string {
	switch v := p.(type) {
	case error:
		return v.Error()
	case string:
		return v
	case nil:
		return "panic(nil)"
	default:
		return fmt.Sprint(v)
	}
}

func gaolMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func gaolQuote(s string) []byte {
	data, _ := gaolMarshal(s) // a string always encodes; invalid UTF-8 becomes U+FFFD
	return data
}

// gaolASCII escapes every non-ASCII character of a JSON text (they can only
// be inside strings) as \uXXXX, surrogate pairs above U+FFFF.
func gaolASCII(s []byte) []byte {
	var b bytes.Buffer
	for len(s) > 0 {
		c, size := utf8.DecodeRune(s)
		switch {
		case c < 0x7f && size == 1:
			b.WriteByte(s[0])
		case c > 0xffff:
			c -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
		default:
			fmt.Fprintf(&b, `\u%04x`, c)
		}
		s = s[size:]
	}
	return b.Bytes()
}
