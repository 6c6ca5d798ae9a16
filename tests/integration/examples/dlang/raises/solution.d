import std.stdio;

int solution(int a, int b) {
    writeln("dividing ", a, " by ", b);
    if (b == 0)
        throw new Exception("division by zero");
    return a / b;
}
