package solution

fun solution(a: Long, b: Long): Long {
    return a +
}
