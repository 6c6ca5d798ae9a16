package solution

fun solution(a: Int, b: Int): Int {
    println("dividing $a by $b")
    return a / b
}
