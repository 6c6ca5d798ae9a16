<?php
/*
 * gaol's Codebattle harness for PHP (POST /run, no checker).
 *
 * Usage (see ../Makefile): php check/harness.php OUTFILE 3>&1 1>>OUTFILE
 *   fd 3 is the real stdout, where the records go; fd 1 appends to OUTFILE,
 *   which the harness reads back and empties after each call.
 *
 * Loads check/solution.php, calls solution(...$arguments) once for every
 * entry of check/asserts.json {"arguments": [[...], ...]} and prints the
 * Codebattle record list as one JSON array on one line:
 *
 *   [{"type":"result","time":"0.0000123","value":3,"output":"hi\n"}, ...]
 *
 * - "result": the call returned; "value" is what it returned.
 * - "error": the call threw (any Throwable: Exception, Error, DivisionByZero,
 *   TypeError...); "value" is getMessage() (the class name when empty), as in
 *   Codebattle's PHP checker.  exit() inside a call and fatal errors
 *   (memory exhausted) end the run with the records so far plus one error
 *   record for that call.
 * - A solution that does not load (parse error, no function `solution`,
 *   bad asserts.json) gives exactly one "error" record.
 * - "time": the call's wall time in seconds, a string with 7 decimals.
 * - "output": everything the call wrote to stdout (echo, print, printf,
 *   var_dump, fwrite(STDOUT), system(), child processes).  Warnings and
 *   notices go there too, one line each, as Codebattle's checker does.
 *   What the file printed while loading goes to the first call's output.
 * - Values: NaN and +-INF become the strings "NaN", "Infinity",
 *   "-Infinity"; invalid UTF-8 is replaced by U+FFFD; objects are encoded by
 *   json_encode's rules.  Records are plain ASCII.
 * - The process exits 0 whatever the values are; Codebattle compares them.
 */

final class GaolHarness
{
    const OUTPUT_MAX = 1048576;

    private static $records = [];
    private static $capture;     // OUTFILE, read back after each call
    private static $out;         // fd 3: the real stdout
    private static $current;     // hrtime start of the call in progress
    private static $finished = false;

    public static function main(array $argv): void
    {
        $path = $argv[1] ?? '';
        self::$out = @fopen('php://fd/3', 'w');
        if (self::$out === false || $path === '') {
            fwrite(STDERR, "usage: php harness.php OUTFILE 3>&1 1>>OUTFILE\n");
            exit(2);
        }
        self::$capture = fopen($path, 'c+');
        ini_set('display_errors', 'stderr');
        error_reporting(E_ALL);
        set_error_handler(function ($errno, $errstr) {
            if (!(error_reporting() & $errno)) {
                return false;
            }
            echo $errstr, "\n";
            return true;
        });
        register_shutdown_function([self::class, 'shutdown']);

        $dir = __DIR__;
        $start = hrtime(true);
        self::$current = $start;
        try {
            $argsList = [];
            if (file_exists("$dir/asserts.json")) {
                $doc = json_decode(file_get_contents("$dir/asserts.json"), true, 100000);
                if (!is_array($doc) || !isset($doc['arguments']) || !is_array($doc['arguments'])) {
                    throw new Exception('asserts.json: expected {"arguments": [[...], ...]}');
                }
                $argsList = $doc['arguments'];
            }
            require "$dir/solution.php";
            if (!function_exists('solution')) {
                throw new Error("solution.php defines no function named 'solution'");
            }
        } catch (Throwable $e) {
            self::add('error', self::message($e), $start, self::take());
            self::finish();
            return;
        }
        $preamble = self::take();
        $level = ob_get_level();
        foreach ($argsList as $arguments) {
            if (!is_array($arguments)) {
                $arguments = [$arguments];
            }
            $start = hrtime(true);
            self::$current = $start;
            try {
                $value = solution(...array_values($arguments));
                $type = 'result';
            } catch (Throwable $e) {
                $value = self::message($e);
                $type = 'error';
            }
            while (ob_get_level() > $level) {
                ob_end_flush();
            }
            self::$current = null;
            self::add($type, $value, $start, $preamble . self::take());
            $preamble = '';
        }
        self::finish();
    }

    // exit() in a call, or a fatal error: the records so far and one for it.
    public static function shutdown(): void
    {
        if (self::$finished) {
            return;
        }
        while (ob_get_level() > 0) {
            ob_end_flush();
        }
        $start = self::$current ?? hrtime(true);
        $err = error_get_last();
        $fatal = E_ERROR | E_PARSE | E_CORE_ERROR | E_COMPILE_ERROR | E_USER_ERROR;
        if ($err !== null && ($err['type'] & $fatal)) {
            $msg = $err['message'];
        } else {
            $msg = 'exit() called';
        }
        self::add('error', $msg, $start, self::take());
        self::finish();
    }

    private static function message(Throwable $e): string
    {
        $m = $e->getMessage();
        return $m === '' ? get_class($e) : $m;
    }

    private static function take(): string
    {
        fflush(STDOUT);
        clearstatcache();
        $stat = fstat(self::$capture);
        $size = $stat ? $stat['size'] : 0;
        $text = '';
        if ($size > 0) {
            rewind(self::$capture);
            $text = (string) fread(self::$capture, min($size, self::OUTPUT_MAX));
            if ($size > self::OUTPUT_MAX) {
                $text .= "\n[gaol: output truncated, $size bytes in all]";
            }
        }
        ftruncate(self::$capture, 0);   // fd 1 appends: the next write starts at 0
        return $text;
    }

    private static function jsonable($value, int $depth = 0)
    {
        if ($depth > 512) {
            throw new Exception('value nested too deeply');
        }
        if (is_float($value) && !is_finite($value)) {
            return is_nan($value) ? 'NaN' : ($value > 0 ? 'Infinity' : '-Infinity');
        }
        if (is_array($value)) {
            $out = [];
            foreach ($value as $k => $v) {
                $out[$k] = self::jsonable($v, $depth + 1);
            }
            return $out;
        }
        if (is_object($value) && !($value instanceof JsonSerializable)) {
            if (method_exists($value, '__toString') && !get_object_vars($value)) {
                return (string) $value;
            }
            return self::jsonable(get_object_vars($value), $depth + 1);
        }
        return $value;
    }

    private static function add(string $type, $value, $start, string $output): void
    {
        $time = sprintf('%.7f', (hrtime(true) - $start) / 1e9);
        $flags = JSON_INVALID_UTF8_SUBSTITUTE;
        $rec = ['type' => $type, 'time' => $time, 'value' => $value, 'output' => $output];
        $json = json_encode($rec, $flags, 100000);
        if ($json === false) {
            try {
                $rec['value'] = self::jsonable($value);
                $json = json_encode($rec, $flags, 100000);
                if ($json === false) {
                    throw new Exception(json_last_error_msg());
                }
            } catch (Throwable $e) {
                $rec['type'] = 'error';
                $rec['value'] = 'result not serialisable: ' . self::message($e);
                $json = json_encode($rec, $flags);
            }
        }
        self::$records[] = $json;
    }

    private static function finish(): void
    {
        self::$finished = true;
        fwrite(self::$out, '[' . implode(', ', self::$records) . "]\n");
        fflush(self::$out);
        exit(0);
    }
}

GaolHarness::main($argv);
