# SPDX-License-Identifier: Apache-2.0
"""Codebattle's client side, rewritten in Python from its sources
(hexlet-codebattle/codebattle), for test_client_codebattle.py:

- request(): the /run body as apps/codebattle/lib/codebattle/code_check/
  executor/remote_zig.ex builds it (build_params), with the solution wrapped
  by the language's solution_wrapper (apps/runner/lib/runner/
  language_meta.ex, languages.ex).
- checker(): the checker text as apps/runner/lib/runner/checker_generator.ex
  generates it from apps/runner/priv/templates/<slug>.eex, for the languages
  whose meta says generate_checker? (checker_meta version :static), with the
  types of apps/runner/lib/runner/types_generator.ex and the type templates
  of languages.ex.
- parse(): the verdict as apps/codebattle/lib/codebattle/code_check/
  output_parser_v2.ex computes it from the answer (exit_code, stdout,
  stderr).

Nothing here is gaol's: where gaol differs, the tests fail.
"""

import json
import re

# ------------------------------------------------------------ languages.ex

# container_run_timeout per slug (languages.ex); remote_zig.ex sends it as
# `timeout` and waits exactly that long for the answer (get_timeout_ms).
TIMEOUT = {
    "ruby": "15s", "js": "15s", "ts": "15s", "python": "15s", "php": "15s",
    "clojure": "15s", "elixir": "20s", "dart": "20s", "cpp": "20s",
    "java": "20s", "golang": "20s", "zig": "20s", "rust": "20s",
    "swift": "20s", "kotlin": "25s", "csharp": "25s",
}

# generate_checker? false (checker_version 2): the image's own checker runs
# the solution; remote_zig.ex then sends "checker_text": null.
HARNESS = {"ruby", "js", "ts", "python", "php", "clojure", "elixir"}

# solution_wrapper (languages.ex), applied by LanguageMeta.wrap_solution.
WRAPPER = {
    "js": "{solution}\n\nmodule.exports = solution;\n",
    "ts": "{solution}\n\nexport default solution;\n",
    "java": "package solution;\n\n{solution}\n",
    "kotlin": "package solution\n\n{solution}\n",
    "golang": "package main\n\n{solution}\n",
}

_BASE_TT = {
    "boolean_true": "true", "boolean_false": "false",
    "array": "[{entries}]", "hash_empty": "{{}}", "hash_value": "{{{entries}}}",
    "hash_inners": '"{key}": {value}',
}


def _tt(**over):
    d = dict(_BASE_TT)
    d.update(over)
    return d


# types, type_templates and defining_variable_template of the :static
# languages (languages.ex), as format strings.
STATIC = {
    "cpp": {
        "types": {"integer": "int", "float": "double", "string": "string",
                  "array": "vector<{inner_type}>", "boolean": "bool",
                  "hash": "map<string,{inner_type}>"},
        "tt": _tt(array="{{{entries}}}", hash_inners='{{"{key}", {value}}}'),
        "defining": "{type} {name}",
    },
    "java": {
        "types": {"integer": "Integer", "float": "Double", "string": "String",
                  "array": "List<{inner_type}>", "boolean": "Boolean",
                  "hash": "Map<String, {inner_type}>"},
        "tt": _tt(array="List.of({entries})", hash_empty="Map.of()",
                  hash_value="Map.ofEntries({entries})",
                  hash_inners='entry("{key}", {value})'),
        "defining": "{type} {name}",
    },
    "kotlin": {
        "types": {"integer": "Int", "float": "Double", "string": "String",
                  "array": "List<{inner_type}>", "boolean": "Boolean",
                  "hash": "Map<String, {inner_type}>"},
        "tt": _tt(array="listOf({entries})", hash_empty="mapOf()",
                  hash_value="mapOf({entries})", hash_inners='"{key}" to {value}'),
        "defining": "{name}: {type}",
    },
    "csharp": {
        "types": {"integer": "int", "float": "double", "string": "string",
                  "array": "List<{inner_type}>", "boolean": "bool",
                  "hash": "Dictionary<string, {inner_type}>"},
        "tt": _tt(array="new() {{{entries}}}", hash_empty="new()",
                  hash_value="new() {{{entries}}}", hash_inners='{{"{key}", {value}}}'),
        "defining": "{type} {name}",
    },
    "golang": {
        "types": {"integer": "int", "float": "float64", "string": "string",
                  "array": "[]{inner_type}", "boolean": "bool",
                  "hash": "map[string]{inner_type}"},
        "tt": _tt(array="[]{inner_type}{{{entries}}}",
                  hash_value="map[string]{inner_type}{{{entries}}}"),
        "defining": "{name} {type}",
    },
    "rust": {
        "types": {"integer": "i64", "float": "f64", "string": "String",
                  "array": "Vec<{inner_type}>", "boolean": "bool",
                  "hash": "HashMap<String, {inner_type}>"},
        "tt": _tt(array="vec![{entries}]", hash_empty="HashMap::new()",
                  hash_value="HashMap::from([{entries}])",
                  hash_inners='(String::from("{key}"), {value})'),
        "defining": "{name}: {type}",
    },
}

# ------------------------------------------------------------ checker_generator.ex


def type_name(t, slug):
    """TypesGenerator.call: the language's name of a signature type."""
    tmpl = STATIC[slug]["types"][t["name"]]
    inner = type_name(t["nested"], slug) if t.get("nested") else ""
    return tmpl.format(inner_type=inner)


def _escape(s):
    # double_backslashes/2 (not dart's)
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace('"', '\\"')


def _elixir_to_string(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def value_expr(t, v, slug):
    """get_value/2."""
    meta = STATIC[slug]
    name = t["name"]
    if name == "string":
        if slug == "rust":
            return 'String::from("%s")' % _escape(v)
        return '"%s"' % _escape(v)
    if name == "boolean":
        return meta["tt"]["boolean_true" if v else "boolean_false"]
    if name == "array":
        entries = ", ".join(value_expr(t["nested"], x, slug) for x in v)
        return meta["tt"]["array"].format(entries=entries,
                                         inner_type=type_name(t["nested"], slug))
    if name == "hash":
        inner = type_name(t["nested"], slug)
        if not v:
            return meta["tt"]["hash_empty"].format(inner_type=inner)
        entries = ", ".join(meta["tt"]["hash_inners"].format(
            key=k, value=value_expr(t["nested"], x, slug)) for k, x in v.items())
        return meta["tt"]["hash_value"].format(entries=entries, inner_type=inner)
    return _elixir_to_string(v)


def checks(task, slug):
    """get_task_binding/2 for a :static language: per assert, the variables
    (defining, value) and the call's argument expression."""
    out = []
    for index, a in enumerate(task["asserts"], 1):
        info = []
        for sig, value in zip(task["input_signature"], a["arguments"]):
            name = "%s%d" % (sig["argument_name"], index)
            info.append({
                "name": name,
                "defining": STATIC[slug]["defining"].format(
                    name=name, type=type_name(sig["type"], slug)),
                "value": value_expr(sig["type"], value, slug),
            })
        out.append({"index": index, "info": info,
                    "expression": ", ".join(i["name"] for i in info)})
    return out


# The templates (priv/templates/<slug>.eex), rendered for `checks`.  Each is
# the template's structure with its loop bodies; the fixed parts are as the
# template has them, compacted where whitespace does not matter.

def _cpp(cs):
    body = []
    for c in cs:
        for i in c["info"]:
            body.append("    %s = %s;" % (i["defining"], i["value"]))
        body.append("    RunTest(finalResults_, buffer_, [&]{ return solution(%s); });"
                    % c["expression"])
    return ('#include "solution.cpp"\n\nint main() {\n'
            '  std::stringstream buffer_;\n'
            '  std::streambuf * oldBuf_ = std::cout.rdbuf(buffer_.rdbuf());\n'
            '  std::vector<std::string> finalResults_;\n\n  try {\n'
            + "\n".join(body) +
            '\n  } catch (const std::exception& e) {\n'
            '    SendError(finalResults_, e.what());\n  }\n\n'
            '  std::cout.rdbuf(oldBuf_);\n'
            '  for (auto const& s : finalResults_) std::cout << s << "\\n";\n'
            '  std::cout << buffer_.str() << "\\n";\n}\n')


def _rust(cs):
    blocks = []
    for c in cs:
        lets = "\n".join("        let %s = %s;" % (i["defining"], i["value"]) for i in c["info"])
        blocks.append("""    {
%s
      let (reader_, writer_) = match pipe() {
          Ok((r, w)) => (Some(r), Some(w)),
          Err(_) => (None, None),
      };
      if let Some(w) = writer_ {
          unsafe { libc::dup2(w.as_raw_fd(), io::stdout().as_raw_fd()); }
      };
      let start_ = time::Instant::now();
      let mut result_ = Result {
          typ: String::from("result"),
          value: solution::solution(%s),
          time: start_.elapsed(),
          output: String::new(),
      };
      if let Some(mut r) = reader_ {
          let _ = io::stdout().flush();
          unsafe {
              libc::dup2(stdout_.as_raw_fd(), io::stdout().as_raw_fd());
              let _ = r.read_to_string(&mut result_.output);
          }
      };
      results_.push(result_);
    };
""" % (lets, c["expression"]))
    return """#![allow(warnings)]

use libc::c_int;
use serde::Serialize;
use serde_with::{DurationSecondsWithFrac, serde_as};
use std::{
    collections::HashMap,
    fs::File,
    io::{self, Read, Write},
    os::fd::{AsRawFd, FromRawFd},
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
    let res = unsafe { libc::pipe(fds.as_mut_ptr()) };
    if res != 0 {
        return Err(io::Error::new(io::ErrorKind::Other, "create pipe"));
    }
    let read = unsafe { File::from_raw_fd(fds[0]) };
    let write = unsafe { File::from_raw_fd(fds[1]) };
    Ok((read, write))
}

fn main() {
    let stdout_ = unsafe { File::from_raw_fd(libc::dup(io::stdout().as_raw_fd())) };
    let mut results_ = Vec::with_capacity(%d);
%s
    unsafe { libc::dup2(stdout_.as_raw_fd(), io::stdout().as_raw_fd()); }
    let mut out_ = io::stdout().lock();
    if let Err(_) = serde_json::to_writer(&mut out_, &results_) {
        eprintln!("Encoding error");
        exit(0);
    }
    let _ = out_.flush();
}
""" % (len(cs), "".join(blocks))


def _csharp(cs):
    body = []
    for c in cs:
        i = c["index"]
        for v in c["info"]:
            body.append("        %s = %s;" % (v["defining"], v["value"]))
        body.append("""        start = DateTime.Now.Ticks;
        object result%d_ = instance.solution(%s);
        executionTime = (DateTime.Now.Ticks - start) / 10000.0;
        IList<object> arguments%d_ = new List<object>(){ %s };
        output = GetOutputAndResetIO(sb);
        executionResults.Add(new AssertResult
            {
            type = "result",
            value = result%d_,
            output = output,
            time = executionTime,
            });""" % (i, c["expression"], i, c["expression"], i))
    return """using System;
using System.IO;
using System.Globalization;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

using KellermanSoftware.CompareNetObjects;

namespace app
{
  public class Checker
  {
    public static void Test(bool success)
    {
      TextWriter oldOut = Console.Out;
      StringBuilder sb = new StringBuilder();
      TextWriter newOut = new StringWriter(sb);

      try {
        Solution instance = new Solution();
        long start = 0;
        double executionTime = 0;
        Console.SetOut(newOut);
        string output = "";
        IList<AssertResult> executionResults = new List<AssertResult>();

%s

        Console.SetOut(oldOut);
        foreach(AssertResult message in executionResults)
        { Console.WriteLine(message); }
      } catch (Exception e) {
        Console.SetOut(oldOut);
        Console.WriteLine(new ErrorMessage{ type = "error", value = e.Message });
        Console.WriteLine(e);
      }
    }

    static string GetOutputAndResetIO(StringBuilder sb)
    {
      string output = sb.ToString();
      sb.Clear();
      return output;
    }

    class AssertResult
    {
      public string? type { get; set; }
      public object? value { get; set; }
      public string? output { get; set; }
      public double? time { get; set; }

      public override string ToString()
      {
        return JsonSerializer.Serialize(this);
      }
    }

    class ErrorMessage
    {
      public string? type { get; set; }
      public string? value { get; set; }

      public override string ToString()
      {
        return JsonSerializer.Serialize(this);
      }
    }
  }
}
""" % "\n".join(body)


def _java(cs):
    body = []
    for c in cs:
        i = c["index"]
        for v in c["info"]:
            body.append("            %s = %s;" % (v["defining"], v["value"]))
        body.append("""            start_ = System.nanoTime();
            Object result%d_ = instance_.solution(%s);
            executionTime_ = (System.nanoTime() - start_) / 1_000_000_000.0;
            time_ = String.format("%%.7f", executionTime_);
            output_ = getOutputAndResetIO(baos_);
            executionResults_.add(new AssertResult(result%d_, output_, time_));
""" % (i, c["expression"], i))
    return """package solution;

import java.io.*;
import java.util.*;
import static java.util.Map.entry;

import com.google.gson.Gson;

public class Checker {
    public static void main(String... _args) {
        PrintStream _oldOut = System.out;
        List<AssertResult> executionResults_ = new ArrayList<AssertResult>();

        try {
            Solution instance_ = new Solution();

            ByteArrayOutputStream baos_ = new ByteArrayOutputStream();
            PrintStream newOut_ = new PrintStream(baos_);
            System.setOut(newOut_);

            String time_ = "";
            long start_ = 0;
            double executionTime_ = 0;
            String output_ = "";

%s
        System.setOut(_oldOut);
        printResults(executionResults_);
      } catch (Exception e) {
          System.setOut(_oldOut);
          e.printStackTrace(System.out);
          StringWriter sw = new StringWriter();
          e.printStackTrace(new PrintWriter(sw));
          String errMessage = sw.toString();
          var errorMessage = new ErrorMessage(errMessage);
          System.out.println(errorMessage);
      }
    }

    private static String getOutputAndResetIO(ByteArrayOutputStream baos) {
        System.out.flush();
        String output = baos.toString();
        baos.reset();
        return output;
    }

  private static void printResults(List<AssertResult> executionResults) {
    executionResults.forEach((AssertResult message) -> System.out.println(message));
  }
}

class AssertResult {
  private String type;
  private Object value;
  private String output;
  private String time;

  public AssertResult(Object value, String output, String time) {
    this.type = "result";
    this.value = value;
    this.output = output;
    this.time = time;
  }

  @Override
  public String toString() {
    return new Gson().toJson(this);
  }
}

class ErrorMessage {
  private String type;
  private String value;

  public ErrorMessage(String value) {
    this.type = "error";
    this.value = value;
  }

  @Override
  public String toString() {
    return new Gson().toJson(this);
  }
}
""" % "\n".join(body)


def _kotlin(cs):
    body = []
    for c in cs:
        i = c["index"]
        for v in c["info"]:
            body.append("    var %s = %s;" % (v["defining"], v["value"]))
        body.append("""    start = System.nanoTime()
    var result%d: Any = solution(%s)
    executionTime = (System.nanoTime() - start) / 1_000_000_000.0
    time = String.format("%%.7f", executionTime)
    output = getOutputAndResetIO(baos)
    executionResults.add(getResultMessage(result%d, output, time))""" % (i, c["expression"], i))
    return """package solution

import java.io.ByteArrayOutputStream
import java.io.PrintStream
import java.util.ArrayList
import com.google.gson.Gson

fun main(args: Array<String>) {
  var oldOut: PrintStream = System.out
  var executionResults: ArrayList<AssertResult> = ArrayList()

  try {
    var baos: ByteArrayOutputStream = ByteArrayOutputStream()
    var newOut: PrintStream = PrintStream(baos)
    System.setOut(newOut)

    var start: Long
    var executionTime: Double
    var output: String
    var time: String

%s
    System.setOut(oldOut)
    printResults(executionResults)
  } catch (e: Exception) {
    System.setOut(oldOut)
    var errMessage: ErrorMessage = getErrorMessage(e.toString())
    println(errMessage);
  }
}

fun getOutputAndResetIO(baos: ByteArrayOutputStream): String {
  System.out.flush()
  var output: String = baos.toString()
  baos.reset()
  return output
}

fun getResultMessage(result: Any, output: String, executionTime: String): AssertResult {
  return AssertResult(result, output, executionTime)
}

fun getErrorMessage(message: String): ErrorMessage {
  return ErrorMessage(message)
}

private fun printResults(executionResults: List<AssertResult>) {
  executionResults.forEach { message -> println(message) }
}

data class AssertResult(val value: Any?, val output: String, val time: String) {
    private val type = "result"
    override fun toString(): String = Gson().toJson(this)
}

data class ErrorMessage(val value: String) {
    private val type = "error"
    override fun toString(): String = Gson().toJson(this)
}
""" % "\n".join(body)


def _golang(cs):
    body = []
    for c in cs:
        for v in c["info"]:
            body.append("  var %s = %s" % (v["defining"], v["value"]))
        body.append("""
  reader_, writer_, err_ = os.Pipe()
  if err_ != nil {
    fmt.Fprintf(os.Stderr, "Error creating pipe: %%v", err_)
  } else {
    os.Stdout = writer_
  }
  start_ = time.Now()
  result_.Value = solution(%s)
  elapsed_ = time.Since(start_)
  result_.Time = fmt.Sprintf("%%.7f", float64(elapsed_.Nanoseconds()) / float64(time.Second))

  if writer_ != nil {
    writer_.Close()
  }
  if reader_ != nil {
    var outBytes_ []byte
    outBytes_, err_ = io.ReadAll(reader_)
    if err_ == nil {
      result_.Output = string(outBytes_)
    }
    reader_.Close()
  }
  results_ = append(results_, result_)
""" % c["expression"])
    return """package main

import (
  "encoding/json"
  "fmt"
  "io"
  "os"
  "time"
)

type result struct {
  Type          string        `json:"type"`
  Value         any           `json:"value"`
  Time          string        `json:"time"`
  Output        string        `json:"output,omitempty"`
}

func main() {
  var (
    start_  time.Time
    result_ result
    reader_ *os.File
    writer_ *os.File
    err_    error
    elapsed_ time.Duration

    stdout_ = os.Stdout
    encoder_ = json.NewEncoder(os.Stdout)
    results_ = make([]result, 0, %d)
  )

  result_.Type = "result"
%s
  if err_ = encoder_.Encode(results_); err_ != nil {
    fmt.Fprintln(stdout_, "Marshaler error")
  }
}
""" % (len(cs), "\n".join(body))


TEMPLATES = {"cpp": _cpp, "rust": _rust, "csharp": _csharp, "java": _java,
             "kotlin": _kotlin, "golang": _golang}


def checker(task, slug):
    """CheckerGenerator.call (checker_version 1): the checker text, or None
    for the harness languages (remote_zig.ex sends null then)."""
    if slug in HARNESS:
        return None
    return TEMPLATES[slug](checks(task, slug))


# ------------------------------------------------------------ remote_zig.ex

def request(task, slug, solution_text):
    """build_params/2: the /run body, key for key."""
    wrapper = WRAPPER.get(slug)
    text = wrapper.format(solution=solution_text) if wrapper else solution_text
    return {
        "checker_text": checker(task, slug),
        "lang_slug": slug,
        "timeout": TIMEOUT[slug],
        "solution_text": text,
        "asserts": json.dumps({"arguments": [a["arguments"] for a in task["asserts"]]}),
    }


def timeout_ms(slug):
    """Languages.get_timeout_ms: Finch's receive_timeout."""
    return int(TIMEOUT[slug].split("s")[0]) * 1000


# ------------------------------------------------------------ output_parser_v2.ex

TIMEOUT_MESSAGE = ("Your solution was executed for longer than 15 seconds, "
                   "try to write more optimally")
OOM_MESSAGE = "Your solution ran out of memory, please, rewrite it"


def _wrap(v):
    # List.wrap
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def _decode_lines(stdout, stderr):
    values = []
    for line in stdout.split("\n"):
        try:
            v = json.loads(line.strip())
        except ValueError:
            continue
        if v is not None and v is not False:      # Enum.filter(&Function.identity/1)
            values.append(v)
    if len(values) == 1 and isinstance(values[0], list) and values[0]:
        values = values[0]
    if not values:
        # inspect(stdout) <> inspect(stderr): an output item with no "output"
        return [{"type": "output", "value": json.dumps(stdout) + json.dumps(stderr)}]
    return _wrap(values)


def _same(a, b):
    """Elixir's == on decoded JSON: 1 == 1.0, but true != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) == type(b) and a == b


def parse(answer, task):
    """call/1 for a 200 answer: {"status", "output_error", "asserts",
    "success_count", "asserts_count"}."""
    stdout, stderr, code = answer["stdout"], answer["stderr"], answer["exit_code"]
    if code != 0:
        if code == 2 and ("Killed" in stdout or "Killed" in stderr):
            err = OOM_MESSAGE
        elif code == 143 and ("SIGTERM" in stdout or "SIGTERM" in stderr):
            err = TIMEOUT_MESSAGE
        else:
            err = "STDERR: %s\n\nSTDOUT: %s\n" % (stderr, stdout)
        return {"status": "error", "output_error": err, "exit_code": code}
    try:
        results = _wrap(json.loads(re.sub(r"WARNING:.+\n", "", stdout)))
    except ValueError:
        results = _decode_lines(stdout, stderr)
    if len(results) == 1 and isinstance(results[0], dict) and results[0].get("type") == "error":
        return {"status": "error",
                "output_error": "STDERR:\n%s%s\n" % (results[0].get("value"), stderr)}
    output_item = next((r for r in results if r.get("type") == "output"), None)
    asserts = []
    for a, r in zip(task["asserts"], [r for r in results if r.get("type") != "output"]):
        ok = r.get("type") == "result" and _same(r.get("value"), a["expected"])
        asserts.append({"status": "success" if ok else "failure", "output": r.get("output"),
                        "result": r.get("value"), "expected": a["expected"]})
    success = sum(1 for a in asserts if a["status"] == "success")
    return {
        "status": "ok" if success == len(task["asserts"]) else "failure",
        "output_error": output_item.get("output") if output_item else "",
        "asserts": asserts,
        "success_count": success,
        "asserts_count": len(task["asserts"]),
    }
