pub fn solution(a: i32, b: i32) -> i32 {
    println!("dividing {} by {}", a, b);
    a / b
}
