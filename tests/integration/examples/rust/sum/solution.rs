pub fn solution(a: i64, b: i64) -> i64 {
    println!("adding {} and {}", a, b);
    a + b
}
