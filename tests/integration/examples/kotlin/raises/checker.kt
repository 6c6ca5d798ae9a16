package solution

// An exception in one call (here the JVM's ArithmeticException) is that
// call's error record; the others go on.
import gaol.Records

fun main() {
    val records = Records()
    records.check { solution(6, 3) }
    records.check { solution(1, 0) }
    records.check { solution(9, 3) }
    records.finish()
}
