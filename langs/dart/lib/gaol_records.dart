// gaol_records.dart: write a Codebattle Dart checker in a few lines.
//
// A checker for POST /run (lang_slug "dart") is lib/checker.dart, run by the
// Dart VM with lib/solution.dart, both in the package `check`.  It prints
// one Codebattle record per call, one JSON object per line:
//
//   {"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
//   {"type":"error","time":"0.0000040","value":"Exception: boom","output":""}
//
// With this library a checker is:
//
//   import 'package:check/gaol_records.dart';
//   import 'package:check/solution.dart';
//
//   void main() {
//     final records = Records();
//     records.check(() => solution(1, 2));
//     records.check(() => solution(10, 20));
//     records.finish();
//   }
//
// check(f) calls f once and prints its record at once (so the records before
// a crash are kept):
// - "result" with the returned value as dart:convert's jsonEncode writes it
//   (numbers, strings, bool, null, List, Map with string keys; Sets as
//   lists, NaN and infinities as the strings "NaN", "Infinity",
//   "-Infinity", other objects their toJson() or toString()), or "error"
//   with what it threw (toString(): "Exception: boom",
//   "IntegerDivisionByZeroException", "RangeError ...");
// - "time": the call's wall time in seconds, a string with 7 decimals;
// - "output": what the call print()ed (print is caught by a zone, as
//   Codebattle's checker does).
// Records are plain ASCII: other characters are \u-escaped.
// result(value) and error(message) print a record without calling anything.
import 'dart:convert';
import 'dart:async';
import 'dart:io';

class Records {
  final StringBuffer _output = StringBuffer();
  final IOSink _out = stdout;

  /// Calls f, prints a "result" or "error" record; true when f returned.
  bool check(dynamic Function() f) {
    final watch = Stopwatch()..start();
    dynamic value;
    Object? failure;
    runZoned(() {
      try {
        value = f();
      } catch (e) {
        failure = e;
      }
    }, zoneSpecification: ZoneSpecification(
      print: (self, parent, zone, line) => _output.writeln(line),
    ));
    watch.stop();
    if (failure != null) {
      _emit('error', failure.toString(), watch);
      return false;
    }
    _emit('result', value, watch);
    return true;
  }

  void result(dynamic value) => _emit('result', value, Stopwatch());

  void error(String message) => _emit('error', message, Stopwatch());

  /// Flushes stdout; returns 0, for exit().
  int finish() {
    _out.flush();
    return 0;
  }

  void _emit(String type, dynamic value, Stopwatch watch) {
    final seconds = watch.elapsedMicroseconds / 1e6;
    String valueJson;
    try {
      valueJson = jsonEncode(_jsonable(value, 0));
    } catch (e) {
      type = 'error';
      valueJson = jsonEncode('result not serialisable: $e');
    }
    final line = '{"type":${jsonEncode(type)},"time":"${seconds.toStringAsFixed(7)}",'
        '"value":$valueJson,"output":${jsonEncode(_output.toString())}}';
    _output.clear();
    _out.writeln(_ascii(line));
  }

  static dynamic _jsonable(dynamic v, int depth) {
    if (depth > 512) throw StateError('value nested too deeply');
    if (v is double) {
      if (v.isNaN) return 'NaN';
      if (v.isInfinite) return v > 0 ? 'Infinity' : '-Infinity';
      return v;
    }
    if (v == null || v is num || v is bool || v is String) return v;
    if (v is Map) {
      return v.map((k, val) => MapEntry(k is String ? k : k.toString(), _jsonable(val, depth + 1)));
    }
    if (v is Iterable) return v.map((e) => _jsonable(e, depth + 1)).toList();
    try {
      return _jsonable((v as dynamic).toJson(), depth + 1);
    } on NoSuchMethodError {
      return v.toString();
    }
  }

  static String _ascii(String s) {
    final b = StringBuffer();
    for (final unit in s.codeUnits) {
      if (unit < 0x7f) {
        b.writeCharCode(unit);
      } else {
        b.write('\\u${unit.toRadixString(16).padLeft(4, '0')}');
      }
    }
    return b.toString();
  }
}
