"""gaol's Codebattle harness for Python (POST /run, no checker).

Loads check/solution.py, calls solution(*arguments) once for every entry of
check/asserts.json {"arguments": [[...], ...]} and prints the Codebattle
record list as one JSON array on one line:

  [{"type": "result", "time": "0.0000123", "value": 3, "output": "hi\n"}, ...]

- "result": the call returned; "value" is what it returned.
- "error": the call raised; "value" is str(exception) (the class name when the
  message is empty).
- A solution that does not load (syntax error, import error, no `solution`
  function, bad asserts.json) gives exactly one "error" record.
- "time" is the call's wall time in seconds, a string with 7 decimals.
- "output" is everything the call wrote to stdout (print, sys.stdout, os.write
  to fd 1, child processes): fd 1 points at a capture file while user code
  runs, so nothing it writes can corrupt the JSON, which goes to a private
  duplicate of the original stdout.  stderr is left alone.  What the module
  printed while loading goes to the first call's output; one call keeps at
  most OUTPUT_MAX bytes of output.
- Values json cannot take: sets become sorted lists, bytes text, NaN and
  +-Infinity the strings "NaN", "Infinity", "-Infinity", other objects str();
  a cyclic value is an error record.  Integers of any size stay integers.
- The process exits 0 whatever the values are; Codebattle compares them.
"""

import io
import json
import math
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOLUTION = os.path.join(HERE, "solution.py")
ASSERTS = os.path.join(HERE, "asserts.json")
OUTPUT_MAX = 1 << 20      # bytes of one call's output kept in its record

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)      # big integers in and out, any size
sys.dont_write_bytecode = True


class Capture:
    """Points fd 1 at an unlinked temporary file; take() returns and clears
    what was written since the last take()."""

    def __init__(self):
        sys.stdout.flush()
        self.out = os.dup(1)
        fd, path = tempfile.mkstemp(prefix="gaol-out-")
        os.unlink(path)
        os.dup2(fd, 1)
        os.close(fd)
        # A fresh unbuffered text stream on fd 1 for the user's print(), so
        # that print() and os.write(1, ...) land in the order they were made.
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False),
                                      encoding="utf-8", errors="replace",
                                      write_through=True)
        sys.__stdout__ = sys.stdout

    def take(self):
        try:
            sys.stdout.flush()
        except Exception:
            pass
        try:
            size = os.lseek(1, 0, os.SEEK_END)
            data = os.pread(1, min(size, OUTPUT_MAX), 0) if size else b""
            os.ftruncate(1, 0)
            os.lseek(1, 0, os.SEEK_SET)
        except OSError as exc:   # the solution closed or replaced fd 1
            return "[gaol: output lost: %s]" % exc
        text = data.decode("utf-8", errors="replace")
        if size > OUTPUT_MAX:
            text += "\n[gaol: output truncated, %d bytes in all]" % size
        return text

    def emit(self, text):
        data = text.encode("ascii")
        while data:
            data = data[os.write(self.out, data):]


def jsonable(value):
    """What json.dumps cannot take, turned into what Codebattle can compare."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k if isinstance(k, (str, int, float, bool)) or k is None else str(k):
                jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [jsonable(v) for v in value]
        try:
            items.sort()
        except TypeError:
            pass
        return items
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def dumps(obj):
    return json.dumps(obj, ensure_ascii=True, allow_nan=False)


def message(exc):
    if isinstance(exc, SystemExit):
        return "SystemExit: %s" % (exc.code,)
    text = str(exc)
    return text if text else type(exc).__name__


def elapsed(start):
    return "{:.7f}".format(time.perf_counter() - start)


def record(kind, value, start, output):
    return {"type": kind, "time": elapsed(start), "value": value, "output": output}


def load():
    """Returns (solution, arguments list) or raises."""
    args_list = []
    if os.path.exists(ASSERTS):
        with open(ASSERTS, encoding="utf-8") as f:
            doc = json.load(f)
        if not isinstance(doc, dict) or not isinstance(doc.get("arguments"), list):
            raise ValueError('asserts.json: expected {"arguments": [[...], ...]}')
        args_list = doc["arguments"]
    import importlib.util
    sys.path.insert(0, HERE)
    spec = importlib.util.spec_from_file_location("solution", SOLUTION)
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    spec.loader.exec_module(module)
    fn = getattr(module, "solution", None)
    if not callable(fn):
        raise NameError("solution.py defines no function named 'solution'")
    return fn, args_list


def main():
    cap = Capture()
    results = []
    start = time.perf_counter()
    try:
        fn, args_list = load()
    except BaseException as exc:  # SyntaxError, SystemExit at import, ...
        results = [record("error", message(exc), start, cap.take())]
        finish(cap, results)
        return
    preamble = cap.take()      # printed while loading: belongs to the first call
    for arguments in args_list:
        if not isinstance(arguments, list):
            arguments = [arguments]
        start = time.perf_counter()
        try:
            value = fn(*arguments)
            kind = "result"
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too
            value, kind = message(exc), "error"
        rec = record(kind, value, start, preamble + cap.take())
        preamble = ""
        try:
            dumps(rec)
        except (TypeError, ValueError, RecursionError):
            try:
                rec["value"] = jsonable(value)
                dumps(rec)
            except (TypeError, ValueError, RecursionError) as exc:
                rec["type"], rec["value"] = "error", "result not serialisable: " + message(exc)
        results.append(rec)
    finish(cap, results)


def finish(cap, results):
    cap.emit(dumps(results) + "\n")
    try:
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(0)   # leftover threads or atexit hooks of the solution do not matter


if __name__ == "__main__":
    main()
