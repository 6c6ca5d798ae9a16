package solution

// a + b, with gaol's record helper (gaol.Records): one record per call, one
// per line.
import gaol.Records

fun main() {
    val records = Records()
    records.check { solution(1, 2) }
    records.check { solution(-5, 5) }
    records.check { solution(4000000000, 4000000000) }
    records.finish()
}
