import std.stdio;

long solution(long a, long b) {
    writeln("adding ", a, " and ", b, " ✓");
    return a + b;
}
