# SPDX-License-Identifier: Apache-2.0
"""Per language, the programs test_client_piston.py sends through npm's
piston-client: keyed by Piston's language name.  Each entry:
  files    the echo program: the entry point prints what a second file
           defines (HELPER), its args and its stdin
  exit3    exits with status 3;  signal   killed by a signal of its own
  loop     never ends;           flood    prints without end
  broken   does not compile (compiled languages) or parse (the others)
"""

HELPER = "from-the-second-file"

P = {}

P["python"] = dict(
    files=[("main.py", "import sys, helper\nprint(helper.V, sys.argv[1:], sys.stdin.read())"),
           ("helper.py", 'V = "%s"' % HELPER)],
    exit3="import sys\nsys.exit(3)",
    signal="import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
    loop="while True: pass",
    flood='while True: print("x" * 1000)',
    broken="def f(:")

P["javascript"] = dict(
    files=[("main.js", "const h = require('./helper.js');\n"
            "console.log(h.V, process.argv.slice(2), require('fs').readFileSync(0, 'utf8'))"),
           ("helper.js", "exports.V = '%s';" % HELPER)],
    exit3="process.exit(3)",
    signal="process.kill(process.pid, 'SIGKILL')",
    loop="for (;;) {}",
    # A loop of console.log never lets node flush a pipe: write as it drains.
    flood="const f = () => process.stdout.write('x'.repeat(100000), f); f()",
    broken="function (")

P["typescript"] = dict(
    files=[("main.ts", "import { V } from './helper';\ndeclare const require: any, process: any;\n"
            "const s: string = require('fs').readFileSync(0, 'utf8');\n"
            "console.log(V, process.argv.slice(2), s);"),
           ("helper.ts", "export const V: string = '%s';" % HELPER)],
    exit3="declare const process: any;\nprocess.exit(3);",
    signal="declare const process: any;\nprocess.kill(process.pid, 'SIGKILL');",
    loop="for (;;) {}",
    flood="declare const process: any;\nconst f = (): void => { process.stdout.write('x'.repeat(100000), f); }; f();",
    broken="let x: = ;", compiled=True)

P["ruby"] = dict(
    files=[("main.rb", "require_relative 'helper'\nputs [V, ARGV, STDIN.read].inspect"),
           ("helper.rb", "V = '%s'" % HELPER)],
    exit3="exit 3",
    signal="Process.kill(:KILL, Process.pid)",
    loop="loop {}",
    flood="loop { puts 'x' * 1000 }",
    broken="def f(")

P["php"] = dict(
    files=[("main.php", "<?php\nrequire 'helper.php';\n"
            "echo V, ' ', implode('|', array_slice($argv, 1)), ' ', stream_get_contents(STDIN);"),
           ("helper.php", "<?php\nconst V = '%s';" % HELPER)],
    exit3="<?php exit(3);",
    signal="<?php posix_kill(getmypid(), 9);",
    loop="<?php for (;;) {}",
    flood="<?php for (;;) echo str_repeat('x', 1000), \"\\n\";",
    broken="<?php function (")

P["c"] = dict(
    files=[("main.c", '#include <stdio.h>\n#include "helper.h"\n'
            'int main(int argc, char **argv) { char b[256]; printf("%s", V);\n'
            ' for (int i = 1; i < argc; i++) printf(" [%s]", argv[i]);\n'
            ' while (fgets(b, sizeof b, stdin)) printf(" %s", b); return 0; }'),
           ("helper.h", "extern const char *V;"),
           ("helper.c", 'const char *V = "%s";' % HELPER)],
    exit3="int main(void) { return 3; }",
    signal="#include <signal.h>\nint main(void) { raise(SIGKILL); return 0; }",
    loop="int main(void) { for (;;) ; }",
    flood='#include <stdio.h>\nint main(void) { for (;;) puts("xxxxxxxxxxxxxxxxxxxx"); }',
    broken="int main(void) { return x; }", compiled=True)

P["c++"] = dict(
    files=[("main.cpp", '#include <iostream>\n#include <string>\n#include "helper.hpp"\n'
            'int main(int argc, char **argv) { std::cout << V;\n'
            ' for (int i = 1; i < argc; i++) std::cout << " [" << argv[i] << "]";\n'
            ' std::string l; while (std::getline(std::cin, l)) std::cout << " " << l; }'),
           ("helper.hpp", "extern const char *V;"),
           ("helper.cpp", 'const char *V = "%s";' % HELPER)],
    exit3="int main() { return 3; }",
    signal="#include <csignal>\nint main() { std::raise(SIGKILL); }",
    loop="int main() { for (;;) {} }",
    flood="#include <cstdio>\nint main() { for (;;) std::puts(\"xxxxxxxxxxxxxxxxxxxx\"); }",
    broken="int main() { return x; }", compiled=True)

P["go"] = dict(
    files=[("main.go", 'package main\nimport ("fmt"; "io"; "os")\n'
            'func main() { b, _ := io.ReadAll(os.Stdin); fmt.Println(V, os.Args[1:], string(b)) }'),
           ("helper.go", 'package main\nconst V = "%s"' % HELPER)],
    exit3='package main\nimport "os"\nfunc main() { os.Exit(3) }',
    signal='package main\nimport "syscall"\nfunc main() { syscall.Kill(syscall.Getpid(), syscall.SIGKILL) }',
    loop="package main\nfunc main() { for {} }",
    flood='package main\nimport "fmt"\nfunc main() { for { fmt.Println("xxxxxxxxxxxxxxxxxxxx") } }',
    broken="package main\nfunc main() { x }", compiled=True)

P["rust"] = dict(
    files=[("main.rs", "mod helper;\nuse std::io::Read;\nfn main() { let mut s = String::new();\n"
            " std::io::stdin().read_to_string(&mut s).unwrap();\n"
            " let a: Vec<String> = std::env::args().skip(1).collect();\n"
            ' println!("{} {:?} {}", helper::V, a, s); }'),
           ("helper.rs", 'pub const V: &str = "%s";' % HELPER)],
    exit3="fn main() { std::process::exit(3) }",
    signal="fn main() { std::process::abort() }",
    loop="fn main() { loop {} }",
    flood='fn main() { loop { println!("xxxxxxxxxxxxxxxxxxxx") } }',
    broken="fn main() { x }", compiled=True)

P["java"] = dict(
    files=[("Main.java", "import java.util.*;\npublic class Main { public static void main(String[] a)"
            " throws Exception { System.out.println(Helper.V + \" \" + Arrays.toString(a) + \" \""
            " + new String(System.in.readAllBytes())); } }"),
           ("Helper.java", 'class Helper { static final String V = "%s"; }' % HELPER)],
    exit3="public class Main { public static void main(String[] a) { System.exit(3); } }",
    signal="public class Main { public static void main(String[] a) throws Exception {"
           " new ProcessBuilder(\"/bin/kill\", \"-9\", \"\" + ProcessHandle.current().pid())"
           ".start().waitFor(); Thread.sleep(5000); } }",
    loop="public class Main { public static void main(String[] a) { for (;;) {} } }",
    flood="public class Main { public static void main(String[] a) { for (;;)"
          " System.out.println(\"xxxxxxxxxxxxxxxxxxxx\"); } }",
    broken="public class Main { void f() { x } }", compiled=True)

P["kotlin"] = dict(
    files=[("main.kt", "fun main(args: Array<String>) {"
            " println(V + \" \" + args.toList() + \" \" + System.`in`.readBytes().toString(Charsets.UTF_8)) }"),
           ("helper.kt", 'const val V = "%s"' % HELPER)],
    exit3="fun main() { kotlin.system.exitProcess(3) }",
    signal="fun main() { ProcessBuilder(\"/bin/kill\", \"-9\", ProcessHandle.current().pid().toString())"
           ".start().waitFor(); Thread.sleep(5000) }",
    loop="fun main() { while (true) {} }",
    flood="fun main() { while (true) println(\"xxxxxxxxxxxxxxxxxxxx\") }",
    broken="fun main() { x }", compiled=True)

P["csharp"] = dict(
    files=[("main.cs", "class P { static void Main(string[] a) { System.Console.WriteLine(H.V + \" \" +"
            " string.Join(\"|\", a) + \" \" + System.Console.In.ReadToEnd()); } }"),
           ("helper.cs", 'class H { public const string V = "%s"; }' % HELPER)],
    exit3="class P { static int Main() { return 3; } }",
    signal="class P { static void Main() { System.Diagnostics.Process.Start(\"/bin/kill\", \"-9 \" +"
           " System.Diagnostics.Process.GetCurrentProcess().Id).WaitForExit();"
           " System.Threading.Thread.Sleep(5000); } }",
    loop="class P { static void Main() { for (;;) {} } }",
    flood="class P { static void Main() { for (;;) System.Console.WriteLine(\"xxxxxxxxxxxxxxxxxxxx\"); } }",
    broken="class P { static void Main() { x } }", compiled=True)

P["elixir"] = dict(
    files=[("main.exs", "Code.require_file(\"helper.exs\", __DIR__)\n"
            "IO.puts(Helper.v() <> \" \" <> inspect(System.argv()) <> \" \" <> IO.read(:all))"),
           ("helper.exs", 'defmodule Helper do\n  def v, do: "%s"\nend' % HELPER)],
    exit3="System.halt(3)",
    signal='System.cmd("/bin/kill", ["-9", System.pid()])\nProcess.sleep(5000)',
    loop="defmodule L do\n  def f, do: f()\nend\nL.f()",
    flood='Stream.repeatedly(fn -> IO.puts("xxxxxxxxxxxxxxxxxxxx") end) |> Stream.run()',
    broken="defmodule do")

P["clojure"] = dict(
    files=[("main.clj", "(load-file \"helper.clj\")\n"
            "(println helper/v *command-line-args* (slurp *in*))"),
           ("helper.clj", '(ns helper)\n(def v "%s")' % HELPER)],
    exit3="(System/exit 3)",
    signal="(.waitFor (.start (ProcessBuilder. [\"/bin/kill\" \"-9\" (str (.pid (java.lang.ProcessHandle/current)))])))\n"
           "(Thread/sleep 5000)",
    loop="(loop [] (recur))",
    flood='(loop [] (println "xxxxxxxxxxxxxxxxxxxx") (recur))',
    broken="(defn f [")

P["haskell"] = dict(
    files=[("Main.hs", "import Helper\nimport System.Environment\n"
            "main = do { a <- getArgs; s <- getContents; putStrLn (v ++ \" \" ++ show a ++ \" \" ++ s) }"),
           ("Helper.hs", 'module Helper where\nv :: String\nv = "%s"' % HELPER)],
    exit3="import System.Exit\nmain = exitWith (ExitFailure 3)",
    signal="import System.Posix.Signals\nmain = raiseSignal sigKILL",
    loop="main = let f x = f (x + 1 :: Int) in f 0 `seq` return ()",
    flood='main = mapM_ putStrLn (repeat "xxxxxxxxxxxxxxxxxxxx")',
    broken="main = x +", compiled=True)

P["d"] = dict(
    files=[("main.d", "import helper, std.stdio, std.algorithm, std.array;\n"
            "void main(string[] a) { writeln(V, \" \", a[1 .. $], \" \", stdin.byLine.map!(l => l.idup).array); }"),
           ("helper.d", 'module helper;\nenum V = "%s";' % HELPER)],
    exit3="int main() { return 3; }",
    signal="import core.stdc.stdlib;\nvoid main() { abort(); }",
    loop="void main() { for (;;) {} }",
    flood='import std.stdio;\nvoid main() { for (;;) writeln("xxxxxxxxxxxxxxxxxxxx"); }',
    broken="void main() { x }", compiled=True)
