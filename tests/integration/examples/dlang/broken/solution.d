long solution(long a, long b) {
    return a + b   // missing semicolon
}
