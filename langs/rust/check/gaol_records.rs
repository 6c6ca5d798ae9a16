//! gaol_records.rs: write a Codebattle Rust checker in a few lines.
//!
//! A checker for POST /run (lang_slug "rust") is check/checker.rs, compiled
//! by rustc as the crate root, with the solution as `mod solution;`
//! (check/solution.rs) and this helper as `mod gaol_records;`.  It prints one
//! Codebattle record per call, one JSON object per line:
//!
//! ```text
//! {"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
//! {"type":"error","time":"0.0000040","value":"attempt to divide by zero","output":""}
//! ```
//!
//! With this module a checker is:
//!
//! ```ignore
//! mod gaol_records;
//! mod solution;
//!
//! fn main() {
//!     let mut records = gaol_records::Records::new(); // captures stdout from here
//!     records.check(|| solution::solution(1, 2));
//!     records.check(|| solution::solution(10, 20));
//!     records.finish();
//! }
//! ```
//!
//! `check(f)` calls f once and prints its record at once (so the records of
//! the calls before a crash are not lost):
//! - "result" with the returned value as JSON: integers, floats (NaN and
//!   infinities as the strings "NaN", "Infinity", "-Infinity"), bool, char,
//!   String and &str, Vec, slices and arrays, VecDeque, HashMap and BTreeMap
//!   (keys written as strings), HashSet and BTreeSet, Option (None is null),
//!   tuples up to 6, () (null), Box; anything else implements `ToJson`;
//! - "error" with the panic's message ("attempt to divide by zero",
//!   "index out of bounds: ...", what `panic!` was given) when f panicked;
//!   the panic hook still prints its usual line on stderr;
//! - "time": the call's wall time in seconds, a string with 7 decimals;
//! - "output": what the call wrote to stdout by any means (println!, print!,
//!   io::stdout(), child processes) since the previous record: fd 1 points at
//!   an unlinked temporary file while the records are open, and they go to a
//!   private duplicate of the real stdout.
//! Records are plain ASCII: other characters are \u-escaped.
//! `result(&value)` and `error(message)` print a record without calling
//! anything.  This module needs nothing but std; serde, serde_json, libc and
//! serde_with (gaol's stand-in) are there too for checkers written the way
//! Codebattle generates them (see ../Makefile).
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::io::{AsRawFd, FromRawFd};
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

extern "C" {
    fn dup(fd: i32) -> i32;
    fn dup2(old: i32, new: i32) -> i32;
}

/// A value a record can hold.
pub trait ToJson {
    fn write_json(&self, out: &mut String);
}

pub struct Records {
    out: Option<File>,
    capture: File,
}

impl Records {
    /// Points fd 1 at a temporary file until `finish`.
    pub fn new() -> Records {
        let _ = std::io::stdout().flush();
        let path = format!("/tmp/gaol-out-{}", std::process::id());
        let capture = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap_or_else(|e| {
                eprintln!("gaol_records: capture: {}", e);
                std::process::exit(1)
            });
        let _ = std::fs::remove_file(&path);
        let saved = unsafe { dup(1) };
        if saved < 0 || unsafe { dup2(capture.as_raw_fd(), 1) } < 0 {
            eprintln!("gaol_records: cannot redirect stdout");
            std::process::exit(1);
        }
        Records { out: Some(unsafe { File::from_raw_fd(saved) }), capture }
    }

    /// Calls f, prints a "result" or "error" record; true when f returned.
    pub fn check<T: ToJson, F: FnOnce() -> T>(&mut self, f: F) -> bool {
        let start = Instant::now();
        match panic::catch_unwind(AssertUnwindSafe(f)) {
            Ok(value) => {
                let mut json = String::new();
                value.write_json(&mut json);
                self.emit("result", &json, start);
                true
            }
            Err(payload) => {
                let message = if let Some(s) = payload.downcast_ref::<&str>() {
                    (*s).to_string()
                } else if let Some(s) = payload.downcast_ref::<String>() {
                    s.clone()
                } else {
                    "panic".to_string()
                };
                self.error_since(&message, start);
                false
            }
        }
    }

    /// Prints a "result" record of value.
    pub fn result<T: ToJson + ?Sized>(&mut self, value: &T) {
        let mut json = String::new();
        value.write_json(&mut json);
        self.emit("result", &json, Instant::now());
    }

    /// Prints an "error" record.
    pub fn error(&mut self, message: &str) {
        self.error_since(message, Instant::now());
    }

    /// Puts stdout back; what was printed after the last record goes out as
    /// is.  Returns 0, for std::process::exit.
    pub fn finish(&mut self) -> i32 {
        if let Some(out) = self.out.take() {
            let rest = self.take();
            unsafe { dup2(out.as_raw_fd(), 1) };
            let mut stdout = std::io::stdout();
            let _ = stdout.write_all(rest.as_bytes());
            let _ = stdout.flush();
        }
        0
    }

    fn error_since(&mut self, message: &str, start: Instant) {
        let mut json = String::new();
        message.write_json(&mut json);
        self.emit("error", &json, start);
    }

    fn take(&mut self) -> String {
        let _ = std::io::stdout().flush();
        let mut data = Vec::new();
        if self.capture.seek(SeekFrom::Start(0)).is_ok() {
            let _ = self.capture.read_to_end(&mut data);
        }
        let _ = self.capture.set_len(0);
        let _ = self.capture.seek(SeekFrom::Start(0)); // fd 1 shares this offset
        String::from_utf8_lossy(&data).into_owned()
    }

    fn emit(&mut self, kind: &str, value_json: &str, start: Instant) {
        let seconds = start.elapsed().as_secs_f64();
        let output = self.take();
        let mut line = String::new();
        line.push_str("{\"type\":");
        kind.write_json(&mut line);
        let _ = write!(line, ",\"time\":\"{:.7}\",\"value\":", seconds);
        line.push_str(value_json);
        line.push_str(",\"output\":");
        output.write_json(&mut line);
        line.push_str("}\n");
        if let Some(out) = self.out.as_mut() {
            let _ = out.write_all(line.as_bytes());
        }
    }
}

impl Drop for Records {
    fn drop(&mut self) {
        self.finish();
    }
}

fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (c as u32) >= 0x7f => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{:04x}", u);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl ToJson for str {
    fn write_json(&self, out: &mut String) {
        write_str(self, out)
    }
}

impl ToJson for String {
    fn write_json(&self, out: &mut String) {
        write_str(self, out)
    }
}

impl ToJson for char {
    fn write_json(&self, out: &mut String) {
        write_str(&self.to_string(), out)
    }
}

impl ToJson for bool {
    fn write_json(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" })
    }
}

impl ToJson for () {
    fn write_json(&self, out: &mut String) {
        out.push_str("null")
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn write_json(&self, out: &mut String) {
                let _ = write!(out, "{}", self);
            }
        }
    )*};
}
integers!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn write_json(&self, out: &mut String) {
                if self.is_nan() {
                    out.push_str("\"NaN\"")
                } else if self.is_infinite() {
                    out.push_str(if *self > 0.0 { "\"Infinity\"" } else { "\"-Infinity\"" })
                } else if self.abs() >= 1e16 || (self.abs() < 1e-5 && *self != 0.0) {
                    let _ = write!(out, "{:e}", self);
                } else if self.fract() == 0.0 {
                    let _ = write!(out, "{:.1}", self);
                } else {
                    let _ = write!(out, "{}", self);
                }
            }
        }
    )*};
}
floats!(f32, f64);

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out)
    }
}

impl<T: ToJson + ?Sized> ToJson for Box<T> {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out)
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(v) => v.write_json(out),
            None => out.push_str("null"),
        }
    }
}

fn write_seq<'a, T: ToJson + 'a, I: Iterator<Item = &'a T>>(items: I, out: &mut String) {
    out.push('[');
    for (i, v) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        v.write_json(out);
    }
    out.push(']');
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut String) {
        write_seq(self.iter(), out)
    }
}

impl<T: ToJson, const N: usize> ToJson for [T; N] {
    fn write_json(&self, out: &mut String) {
        write_seq(self.iter(), out)
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        write_seq(self.iter(), out)
    }
}

impl<T: ToJson> ToJson for VecDeque<T> {
    fn write_json(&self, out: &mut String) {
        write_seq(self.iter(), out)
    }
}

impl<T: ToJson + Ord> ToJson for BTreeSet<T> {
    fn write_json(&self, out: &mut String) {
        write_seq(self.iter(), out)
    }
}

impl<T: ToJson + Ord, S> ToJson for HashSet<T, S> {
    fn write_json(&self, out: &mut String) {
        let mut items: Vec<&T> = self.iter().collect();
        items.sort();
        write_seq(items.into_iter(), out)
    }
}

fn write_key<K: ToJson>(key: &K, out: &mut String) {
    let mut k = String::new();
    key.write_json(&mut k);
    if k.starts_with('"') {
        out.push_str(&k);
    } else {
        write_str(&k, out);
    }
}

fn write_map<'a, K: ToJson + 'a, V: ToJson + 'a, I: Iterator<Item = (&'a K, &'a V)>>(
    entries: I,
    out: &mut String,
) {
    out.push('{');
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_key(k, out);
        out.push(':');
        v.write_json(out);
    }
    out.push('}');
}

impl<K: ToJson + Ord, V: ToJson> ToJson for BTreeMap<K, V> {
    fn write_json(&self, out: &mut String) {
        write_map(self.iter(), out)
    }
}

impl<K: ToJson + Ord, V: ToJson, S> ToJson for HashMap<K, V, S> {
    fn write_json(&self, out: &mut String) {
        let mut entries: Vec<(&K, &V)> = self.iter().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        write_map(entries.into_iter(), out)
    }
}

macro_rules! tuples {
    ($(($($n:tt $t:ident),+)),*) => {$(
        impl<$($t: ToJson),+> ToJson for ($($t,)+) {
            fn write_json(&self, out: &mut String) {
                out.push('[');
                let mut first = true;
                $(
                    if !first { out.push(','); }
                    first = false;
                    self.$n.write_json(out);
                )+
                let _ = first;
                out.push(']');
            }
        }
    )*};
}
tuples!((0 A), (0 A, 1 B), (0 A, 1 B, 2 C), (0 A, 1 B, 2 C, 3 D), (0 A, 1 B, 2 C, 3 D, 4 E),
        (0 A, 1 B, 2 C, 3 D, 4 E, 5 F));
