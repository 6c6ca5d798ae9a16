"""Programs for the languages of issue 33 (tests/integration/test_more_langs_short.py,
tests/langs/test_more_langs_matrix.py): per language a hello world ("hello"),
a+b read from stdin ("ok"), exit code 3 ("exit3"), a CPU loop ("busy"), an
allocation loop that touches what it allocates ("memory"), a syntax error
("broken") and, where the language can start processes, a fork bomb ("fork":
processes started for ever, failures ignored: by fork where the language has
it, each child forking too; else by the language's own way to start a
program, through /bin/sh or not).  None where a language cannot express the
case."""

HELLO = "Hello, World!"

PROGRAMS = {
    "bash": {
        "hello": 'echo "Hello, World!"\n',
        "ok": "read a b\necho $((a + b))\n",
        "exit3": "exit 3\n",
        "busy": "while :; do :; done\n",
        "memory": 'x=1234567890\nwhile :; do x="$x$x"; done\n',
        "broken": "if true; then\n  echo 1\n",
        "fork": "f() { while :; do f & done; }\nf\n",
    },
    "lua": {
        "hello": 'print("Hello, World!")\n',
        "ok": 'local a, b = io.read("n", "n")\nprint(math.tointeger(a + b))\n',
        "exit3": "os.exit(3)\n",
        "busy": "local x = 0\nwhile true do x = x + 1 end\n",
        "memory": 'local keep = {}\nwhile true do keep[#keep + 1] = string.rep("x", 1 << 20) .. #keep end\n',
        "broken": "function main(\n  return 1\nend\n",
        "fork": "local me = arg[-1] .. \" \" .. arg[0] .. \" &\"\nwhile true do os.execute(me) end\n",
    },
    "perl": {
        "hello": 'print "Hello, World!\\n";\n',
        "ok": 'my ($a, $b) = split " ", join " ", <STDIN>;\nprint $a + $b, "\\n";\n',
        "exit3": "exit 3;\n",
        "busy": "my $x = 0;\nwhile (1) { $x++ }\n",
        "memory": 'my @keep;\nwhile (1) { push @keep, "x" x (1 << 20) }\n',
        "broken": "sub main {\n  print 1\n",
        "fork": "fork while 1;\n",
    },
    "sqlite3": {
        "hello": "SELECT 'Hello, World!';\n",
        # The test's input, a table of lines (docs/api.md, "Languages": sqlite3).
        "ok": "CREATE TABLE input(line TEXT);\n.mode tabs\n.import '|cat' input\n.mode list\n"
              "SELECT CAST(substr(line, 1, instr(line, ' ') - 1) AS INTEGER) + CAST(substr(line, instr(line, ' ') + 1) AS INTEGER) FROM input;\n",
        "exit3": ".exit 3\n",
        "busy": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;\n",
        "memory": "CREATE TABLE t(b BLOB);\n"
                  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO t SELECT randomblob(1000000) FROM c;\n",
        "broken": "SELEC 1;\n",
        "fork": ".shell bash -c 'f() { while :; do f & done; }; f'\n",
    },
    "pascal": {
        "hello": "program Hello;\nbegin\n  writeln('Hello, World!');\nend.\n",
        "ok": "program Sum;\nvar a, b: int64;\nbegin\n  read(a, b);\n  writeln(a + b);\nend.\n",
        "exit3": "program Exit3;\nbegin\n  halt(3);\nend.\n",
        "busy": "program Busy;\nvar x: int64;\nbegin\n  x := 0;\n  while true do inc(x);\nend.\n",
        "memory": "program Grow;\nvar p: PByte;\nbegin\n  while true do\n  begin\n    GetMem(p, 1 shl 20);\n"
                  "    FillChar(p^, 1 shl 20, 1);\n  end;\nend.\n",
        "broken": "program Broken;\nbegin\n  writeln(1\nend.\n",
        "fork": "program Bomb;\nuses BaseUnix;\nbegin\n  while true do fpFork;\nend.\n",
    },
    "r": {
        "hello": 'cat("Hello, World!\\n")\n',
        "ok": 'x <- scan(file("stdin"), quiet = TRUE)\ncat(format(x[1] + x[2], scientific = FALSE), "\\n", sep = "")\n',
        "exit3": "quit(status = 3)\n",
        "busy": "x <- 0\nrepeat { x <- x + 1 }\n",
        "memory": "keep <- list()\nrepeat { keep[[length(keep) + 1]] <- rep(1, 131072) }\n",
        "broken": "f <- function( {\n  1\n}\n",
        "fork": "repeat { parallel::mcparallel(repeat { parallel::mcparallel(Sys.sleep(100)) }) }\n",
    },
    "ocaml": {
        "hello": 'let () = print_endline "Hello, World!"\n',
        "ok": 'let () = Scanf.scanf " %d %d" (fun a b -> Printf.printf "%d\\n" (a + b))\n',
        "exit3": "let () = exit 3\n",
        "busy": "let () = let x = ref 0 in while true do incr x done\n",
        "memory": "let keep = ref []\nlet () = while true do keep := Bytes.make (1 lsl 20) 'x' :: !keep done\n",
        "broken": "let () = print_int (1 +\n",
        "fork": "let me = Filename.quote Sys.executable_name ^ \" &\"\nlet () = while true do ignore (Sys.command me) done\n",
    },
    "fortran": {
        "hello": 'program hello\n  print "(a)", "Hello, World!"\nend program hello\n',
        "ok": "program sum\n  integer(8) :: a, b\n  read *, a, b\n  print '(i0)', a + b\nend program sum\n",
        "exit3": "program e\n  stop 3\nend program e\n",
        "busy": "program busy\n  integer(8), volatile :: x\n  x = 0\n  do\n    x = x + 1\n  end do\nend program busy\n",
        "memory": "program grow\n  integer(1), pointer :: p(:)\n  do\n    allocate(p(1048576))\n    p = 1\n  end do\nend program grow\n",
        "broken": "program broken\n  print *, (1 +\nend program broken\n",
        "fork": "program bomb\n  character(len=4096) :: me\n  integer :: e, c\n  call get_command_argument(0, me)\n  do\n"
                "    call execute_command_line(trim(me) // ' &', exitstat=e, cmdstat=c)\n  end do\nend program bomb\n",
    },
    "erlang": {
        "hello": 'main(_) -> io:format("Hello, World!~n").\n',
        "ok": 'main(_) ->\n    {ok, [A, B]} = io:fread("", "~d ~d"),\n    io:format("~p~n", [A + B]).\n',
        "exit3": "main(_) -> halt(3).\n",
        "busy": "main(_) -> loop(0).\nloop(X) -> loop(X + 1).\n",
        "memory": "main(_) -> grow([]).\ngrow(K) -> grow([binary:copy(<<1>>, 1048576) | K]).\n",
        "broken": "main(_) -> io:format(\"~p~n\", [1 +]).\n",
        "fork": "main(_) -> loop().\nloop() -> catch open_port({spawn, \"sleep 1000\"}, []), loop().\n",
    },
    "prolog": {
        "hello": ":- initialization(main).\nmain :- write('Hello, World!'), nl.\n",
        "ok": ":- initialization(main).\nmain :- read_integer(A), read_integer(B), C is A + B, write(C), nl.\n",
        "exit3": ":- initialization(main).\nmain :- halt(3).\n",
        "busy": ":- initialization(main).\nmain :- loop(0).\nloop(X) :- Y is X + 1, loop(Y).\n",
        "memory": ":- initialization(main).\nmain :- grow([]).\ngrow(L) :- length(B, 100000), grow([B|L]).\n",
        "broken": ":- initialization(main).\nmain :- write(1.\n",
        "fork": ":- initialization(main).\nmain :- argument_value(0, Me), atom_concat(Me, ' &', C),\n"
                "    repeat, catch(system(C, _), _, true), fail.\n",
    },
    "lisp": {
        "hello": '(write-line "Hello, World!")\n',
        "ok": "(print-object (+ (read) (read)) *standard-output*)\n(terpri)\n",
        "exit3": "(sb-ext:exit :code 3)\n",
        "busy": "(loop)\n",
        "memory": "(defvar *keep* nil)\n(loop (push (make-array 1048576 :element-type '(unsigned-byte 8) :initial-element 1) *keep*))\n",
        "broken": "(defun main ()\n  (print 1)\n",
        "fork": "(loop (ignore-errors (sb-ext:run-program \"/bin/sleep\" (list \"1000\") :wait nil)))\n",
    },
    "scala": {
        "hello": 'object Main extends App {\n  println("Hello, World!")\n}\n',
        "ok": "object Main {\n  def main(args: Array[String]): Unit = {\n"
              "    val v = scala.io.Source.stdin.mkString.trim.split(\"\\\\s+\").map(_.toLong)\n    println(v(0) + v(1))\n  }\n}\n",
        "exit3": "object Main extends App {\n  sys.exit(3)\n}\n",
        "busy": "object Main {\n  def main(args: Array[String]): Unit = {\n    var x = 0L\n    while (true) x += 1\n  }\n}\n",
        "memory": "object Main {\n  def main(args: Array[String]): Unit = {\n    val keep = new java.util.ArrayList[Array[Long]]()\n"
                  "    while (true) { val b = new Array[Long](1 << 17); java.util.Arrays.fill(b, 1L); keep.add(b) }\n  }\n}\n",
        "broken": "object Main {\n  def main(args: Array[String]): Unit = {\n    val x = \n  }\n}\n",
        "fork": "object Main {\n  def main(args: Array[String]): Unit = {\n    while (true) {\n"
                "      try { new ProcessBuilder(\"/bin/sleep\", \"1000\").start() } catch { case _: Throwable => }\n    }\n  }\n}\n",
    },
    "groovy": {
        "hello": 'println "Hello, World!"\n',
        "ok": "def v = System.in.text.trim().split(/\\s+/)*.toLong()\nprintln v[0] + v[1]\n",
        "exit3": "System.exit(3)\n",
        "busy": "long x = 0\nwhile (true) { x++ }\n",
        "memory": "def keep = []\nwhile (true) { long[] b = new long[1 << 17]; java.util.Arrays.fill(b, 1L); keep << b }\n",
        "broken": "def f( {\n  1\n}\n",
        "fork": "while (true) {\n  try { new ProcessBuilder(\"/bin/sleep\", \"1000\").start() } catch (Throwable t) {}\n}\n",
    },
    "octave": {
        "hello": 'printf("Hello, World!\\n");\n',
        "ok": 'x = fscanf(stdin, "%d");\nprintf("%d\\n", x(1) + x(2));\n',
        "exit3": "exit(3);\n",
        "busy": "x = 0;\nwhile true\n  x = x + 1;\nend\n",
        "memory": "keep = {};\nwhile true\n  keep{end + 1} = ones(131072, 1);\nend\n",
        "broken": "x = (1 + ;\n",
        "fork": "while true\n  fork();\nend\n",
    },
    "cobol": {
        "hello": "IDENTIFICATION DIVISION.\nPROGRAM-ID. HELLO.\nPROCEDURE DIVISION.\n    DISPLAY \"Hello, World!\".\n    STOP RUN.\n",
        "ok": "IDENTIFICATION DIVISION.\nPROGRAM-ID. SUM.\nDATA DIVISION.\nWORKING-STORAGE SECTION.\n"
              "01 LINE-IN PIC X(80).\n01 A PIC S9(18).\n01 B PIC S9(18).\n01 C PIC -(18)9.\n"
              "PROCEDURE DIVISION.\n    ACCEPT LINE-IN.\n    UNSTRING LINE-IN DELIMITED BY ALL SPACE INTO A B.\n"
              "    COMPUTE C = A + B.\n    DISPLAY FUNCTION TRIM(C).\n    STOP RUN.\n",
        "exit3": "IDENTIFICATION DIVISION.\nPROGRAM-ID. E3.\nPROCEDURE DIVISION.\n    STOP RUN RETURNING 3.\n",
        "busy": "IDENTIFICATION DIVISION.\nPROGRAM-ID. BUSY.\nDATA DIVISION.\nWORKING-STORAGE SECTION.\n01 X PIC 9(9) COMP.\n"
                "PROCEDURE DIVISION.\n    PERFORM UNTIL 1 = 2\n        ADD 1 TO X\n    END-PERFORM.\n    STOP RUN.\n",
        "memory": "IDENTIFICATION DIVISION.\nPROGRAM-ID. GROW.\nDATA DIVISION.\nWORKING-STORAGE SECTION.\n01 P USAGE POINTER.\n"
                  "PROCEDURE DIVISION.\n    PERFORM UNTIL 1 = 2\n        ALLOCATE 1048576 CHARACTERS INITIALIZED RETURNING P\n"
                  "    END-PERFORM.\n    STOP RUN.\n",
        "broken": "IDENTIFICATION DIVISION.\nPROGRAM-ID. BROKEN.\nPROCEDURE DIVISION.\n    DISPLAY \"x\" UPON.\n",
        "fork": "IDENTIFICATION DIVISION.\nPROGRAM-ID. BOMB.\nPROCEDURE DIVISION.\n    PERFORM UNTIL 1 = 2\n"
                "        CALL \"SYSTEM\" USING \"sleep 1000 &\"\n    END-PERFORM.\n    STOP RUN.\n",
    },
    "nasm": {
        "hello": "global _start\nsection .data\nmsg: db \"Hello, World!\", 10\nsection .text\n_start:\n"
                 "    mov rax, 1\n    mov rdi, 1\n    lea rsi, [rel msg]\n    mov rdx, 14\n    syscall\n"
                 "    mov rax, 60\n    xor rdi, rdi\n    syscall\n",
        # Linked by gcc against the C library: scanf and printf.
        "ok": "global main\nextern scanf, printf\nsection .data\nin: db \"%ld %ld\", 0\nout: db \"%ld\", 10, 0\n"
              "section .bss\na: resq 1\nb: resq 1\nsection .text\nmain:\n    sub rsp, 8\n"
              "    lea rdi, [rel in]\n    lea rsi, [rel a]\n    lea rdx, [rel b]\n    xor eax, eax\n    call scanf\n"
              "    mov rsi, [rel a]\n    add rsi, [rel b]\n    lea rdi, [rel out]\n    xor eax, eax\n    call printf\n"
              "    add rsp, 8\n    xor eax, eax\n    ret\n",
        "exit3": "global _start\nsection .text\n_start:\n    mov rax, 60\n    mov rdi, 3\n    syscall\n",
        "busy": "global _start\nsection .text\n_start:\n    inc rax\n    jmp _start\n",
        # mmap 1 MiB at a time and touch every page.
        "memory": "global _start\nsection .text\n_start:\n    mov rax, 9\n    xor rdi, rdi\n    mov rsi, 1048576\n"
                  "    mov rdx, 3\n    mov r10, 0x22\n    mov r8, -1\n    xor r9, r9\n    syscall\n"
                  "    mov rcx, 256\n.touch:\n    mov byte [rax], 1\n    add rax, 4096\n    loop .touch\n    jmp _start\n",
        "broken": "global _start\nsection .text\n_start:\n    mov rax,\n",
        "fork": "global _start\nsection .text\n_start:\n    mov rax, 57\n    syscall\n    jmp _start\n",
    },
    "objectivec": {
        "hello": '#import <Foundation/Foundation.h>\nint main(void) {\n  @autoreleasepool {\n'
                 '    printf("%s\\n", [@"Hello, World!" UTF8String]);\n  }\n  return 0;\n}\n',
        "ok": '#import <Foundation/Foundation.h>\nint main(void) {\n  long a, b;\n  if (scanf("%ld %ld", &a, &b) != 2) return 1;\n'
              '  @autoreleasepool {\n    NSNumber *s = [NSNumber numberWithLong:a + b];\n'
              '    printf("%s\\n", [[s stringValue] UTF8String]);\n  }\n  return 0;\n}\n',
        "exit3": "#import <Foundation/Foundation.h>\nint main(void) {\n  return 3;\n}\n",
        "busy": "#import <Foundation/Foundation.h>\nint main(void) {\n  volatile long x = 0;\n  for (;;) x++;\n}\n",
        "memory": "#import <Foundation/Foundation.h>\nint main(void) {\n  NSMutableArray *keep = [NSMutableArray new];\n  for (;;) {\n"
                  "    NSMutableData *d = [[NSMutableData alloc] initWithLength:1 << 20];\n    memset([d mutableBytes], 1, 1 << 20);\n"
                  "    [keep addObject:d];\n  }\n}\n",
        "broken": "#import <Foundation/Foundation.h>\nint main(void) {\n  return 0\n}\n",
        "fork": "#import <Foundation/Foundation.h>\n#include <unistd.h>\nint main(void) {\n  for (;;) fork();\n}\n",
    },
    "c_clang": {
        "hello": '#include <stdio.h>\nint main(void) { puts("Hello, World!"); return 0; }\n',
        "ok": '#include <stdio.h>\nint main(void) { long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b); return 0; }\n',
        "exit3": "int main(void) { return 3; }\n",
        "busy": "int main(void) { volatile long x = 0; for (;;) x++; }\n",
        # Kept through a volatile pointer: clang -O2 removes a malloc nothing reads.
        "memory": "#include <stdlib.h>\n#include <string.h>\nchar *volatile keep;\n"
                  "int main(void) { for (;;) { char *p = malloc(1 << 20); if (!p) return 1; memset(p, 1, 1 << 20); keep = p; } }\n",
        "broken": "int main(void) { return 0 }\n",
        "fork": "#include <unistd.h>\nint main(void) { for (;;) fork(); }\n",
    },
    "cpp_clang": {
        "hello": '#include <iostream>\nint main() { std::cout << "Hello, World!" << std::endl; }\n',
        "ok": "#include <bits/stdc++.h>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << \"\\n\"; }\n",
        "exit3": "int main() { return 3; }\n",
        "busy": "int main() { volatile long x = 0; for (;;) x++; }\n",
        "memory": "#include <vector>\n#include <cstring>\nint main() { std::vector<char *> v; for (;;) { char *p = new char[1 << 20]; std::memset(p, 1, 1 << 20); v.push_back(p); } }\n",
        "broken": "int main() { return 0 }\n",
        "fork": "#include <unistd.h>\nint main() { for (;;) fork(); }\n",
    },
    "tcl": {
        "hello": 'puts "Hello, World!"\n',
        "ok": "lassign [read stdin] a b\nputs [expr {$a + $b}]\n",
        "exit3": "exit 3\n",
        "busy": "set x 0\nwhile 1 { incr x }\n",
        "memory": "set keep {}\nwhile 1 { lappend keep [string repeat x 1048576][llength $keep] }\n",
        "broken": "puts [expr {1 +\n",
        "fork": "while 1 { catch { exec /bin/sleep 1000 & } }\n",
    },
    "racket": {
        "hello": '#lang racket/base\n(displayln "Hello, World!")\n',
        "ok": "#lang racket/base\n(displayln (+ (read) (read)))\n",
        "exit3": "#lang racket/base\n(exit 3)\n",
        "busy": "#lang racket/base\n(let loop ([x 0]) (loop (add1 x)))\n",
        "memory": "#lang racket/base\n(let loop ([keep '()]) (loop (cons (make-bytes 1048576 1) keep)))\n",
        "broken": "#lang racket/base\n(define (f x)\n  (+ x 1)\n",
        "fork": "#lang racket/base\n(require racket/system)\n(let loop ()\n"
                "  (with-handlers ([(lambda (e) #t) void]) (process* \"/bin/sleep\" \"1000\"))\n  (loop))\n",
    },
    "nim": {
        "hello": 'echo "Hello, World!"\n',
        "ok": "import strutils\nlet v = stdin.readAll().splitWhitespace()\necho parseBiggestInt(v[0]) + parseBiggestInt(v[1])\n",
        "exit3": "quit(3)\n",
        "busy": "var x {.volatile.}: int = 0\nwhile true: x = x + 1\n",
        "memory": "var keep: seq[seq[byte]]\nwhile true:\n  var b = newSeq[byte](1 shl 20)\n  for i in 0 ..< b.len: b[i] = 1\n  keep.add(b)\n",
        "broken": "proc main() =\n  let x =\n",
        "fork": "import posix\nwhile true: discard fork()\n",
    },
    "crystal": {
        "hello": 'puts "Hello, World!"\n',
        "ok": "a, b = STDIN.gets_to_end.split.map(&.to_i64)\nputs a + b\n",
        "exit3": "exit 3\n",
        "busy": "x = 0_i64\nloop { x = x &+ 1 }\n",
        "memory": "keep = [] of Bytes\nloop { keep << Bytes.new(1 << 20, 1_u8) }\n",
        "broken": "def main(\n  1\nend\n",
        "fork": "loop do\n  begin\n    Process.new(\"/bin/sleep\", [\"1000\"])\n  rescue\n  end\nend\n",
    },
    "pypy3": {
        "hello": 'print("Hello, World!")\n',
        "ok": "a, b = map(int, input().split())\nprint(a + b)\n",
        "exit3": "import sys\nsys.exit(3)\n",
        "busy": "while True: pass\n",
        "memory": "blocks = []\nwhile True:\n    blocks.append(bytearray(1 << 20))\n",
        "broken": "def main(:\n    pass\n",
        "fork": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    },
}

LANGS = sorted(PROGRAMS)

# Languages whose build step does not parse the program: a syntax error is the
# run's own failure (RE, the message on stderr), as python's.
SYNTAX_AT_RUN = {"sqlite3", "lisp", "tcl", "octave", "pypy3"}

# The JVM and Octave start with a heap of their own: their memory test needs
# room for the runtime before the program's allocations.
MEMORY_LIMIT_MB = {"scala": 256, "groovy": 256, "octave": 256, "r": 128, "racket": 256,
                   "erlang": 128, "lisp": 128}
