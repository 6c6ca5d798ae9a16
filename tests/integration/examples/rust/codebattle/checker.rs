// a + b, checked the way Codebattle's generated Rust checkers do it: serde,
// serde_with's #[serde_as] for the time, libc's pipe and dup2 to capture
// stdout around each call, one JSON array of records at the end.  (Codebattle
// imports std::os::fd, stable since Rust 1.66; this older form, through
// std::os::unix::io, must keep building too.)
#![allow(warnings)]

use libc::c_int;
use serde::Serialize;
use serde_with::{serde_as, DurationSecondsWithFrac};
use std::{
    fs::File,
    io::{self, Read, Write},
    os::unix::io::{AsRawFd, FromRawFd},
    process::exit,
    time::{self, Duration},
};

mod solution;

#[serde_as]
#[derive(Serialize, Debug)]
struct Result<T> {
    #[serde(rename = "type")]
    typ: String,
    value: T,
    #[serde_as(as = "DurationSecondsWithFrac<String>")]
    time: Duration,
    #[serde(skip_serializing_if = "String::is_empty")]
    output: String,
}

fn pipe() -> std::io::Result<(File, File)> {
    let mut fds: [c_int; 2] = [0; 2];
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::new(io::ErrorKind::Other, "create pipe"));
    }
    Ok(unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) })
}

fn main() {
    let mut stdout_ = unsafe { File::from_raw_fd(libc::dup(io::stdout().as_raw_fd())) };
    let mut results_ = Vec::with_capacity(3);
    for (a, b) in [(1i64, 2i64), (-5, 5), (4000000000, 4000000000)] {
        let (reader_, writer_) = match pipe() {
            Ok((r, w)) => (Some(r), Some(w)),
            Err(_) => (None, None),
        };
        if let Some(w) = writer_ {
            unsafe { libc::dup2(w.as_raw_fd(), io::stdout().as_raw_fd()) };
        }
        let start_ = time::Instant::now();
        let mut result_ = Result {
            typ: String::from("result"),
            value: solution::solution(a, b),
            time: start_.elapsed(),
            output: String::new(),
        };
        if let Some(mut r) = reader_ {
            let _ = io::stdout().flush();
            unsafe { libc::dup2(stdout_.as_raw_fd(), io::stdout().as_raw_fd()) };
            let _ = r.read_to_string(&mut result_.output);
        }
        results_.push(result_);
    }
    if let Err(_) = serde_json::to_writer(&mut stdout_, &results_) {
        eprintln!("Encoding error");
        exit(0);
    }
}
