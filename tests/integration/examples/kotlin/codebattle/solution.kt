package solution

import kotlin.collections.*

fun solution(a: Long, b: Long): Long {
    println("adding $a and $b ✓")
    return a + b
}
