//! gaol's stand-in for the part of serde_with that Codebattle's generated
//! Rust checkers use (serde_with is not packaged in Debian 12):
//! `#[serde_as]` with `#[serde_as(as = "T")]` fields, for T one of
//! `DurationSecondsWithFrac<String>` / `<f64>`, `DurationSeconds<String>` /
//! `<u64>` / `<f64>`, `DisplayFromStr` and `Same`.  Serialisation only.
//! Durations are written as serde_with writes them: whole seconds, or
//! seconds with their fraction ("0.000012345").
use std::fmt::Display;
use std::marker::PhantomData;
use std::time::Duration;

use serde::Serializer;

pub use serde_with_macros::serde_as;

/// The adapter `#[serde_as(as = "T")]` expands to: `#[serde(with = "As::<T>")]`.
pub struct As<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized> As<T> {
    pub fn serialize<S, I>(value: &I, serializer: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
        I: ?Sized,
        T: SerializeAs<I>,
    {
        T::serialize_as(value, serializer)
    }
}

/// How a type T is serialised through a marker type.
pub trait SerializeAs<T: ?Sized> {
    fn serialize_as<S: Serializer>(source: &T, serializer: S) -> Result<S::Ok, S::Error>;
}

/// serde_with's strictness markers, accepted and ignored.
pub mod formats {
    pub struct Strict;
    pub struct Flexible;
}

pub struct DurationSecondsWithFrac<FORMAT = f64, STRICTNESS = formats::Strict>(PhantomData<(FORMAT, STRICTNESS)>);
pub struct DurationSeconds<FORMAT = u64, STRICTNESS = formats::Strict>(PhantomData<(FORMAT, STRICTNESS)>);
pub struct DisplayFromStr;
pub struct Same;

fn frac(d: &Duration) -> String {
    let nanos = d.subsec_nanos();
    if nanos == 0 {
        d.as_secs().to_string()
    } else {
        let digits = format!("{:09}", nanos);
        format!("{}.{}", d.as_secs(), digits.trim_end_matches('0'))
    }
}

impl<X> SerializeAs<Duration> for DurationSecondsWithFrac<String, X> {
    fn serialize_as<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&frac(d))
    }
}

impl<X> SerializeAs<Duration> for DurationSecondsWithFrac<f64, X> {
    fn serialize_as<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
}

fn rounded(d: &Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() >= 500_000_000)
}

impl<X> SerializeAs<Duration> for DurationSeconds<String, X> {
    fn serialize_as<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&rounded(d).to_string())
    }
}

impl<X> SerializeAs<Duration> for DurationSeconds<u64, X> {
    fn serialize_as<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(rounded(d))
    }
}

impl<X> SerializeAs<Duration> for DurationSeconds<f64, X> {
    fn serialize_as<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(rounded(d) as f64)
    }
}

impl<T: Display + ?Sized> SerializeAs<T> for DisplayFromStr {
    fn serialize_as<S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }
}

impl<T: serde::Serialize + ?Sized> SerializeAs<T> for Same {
    fn serialize_as<S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
}
