pub fn solution(a: i64, b: i64) i64 {
    return a + b // missing semicolon
}
