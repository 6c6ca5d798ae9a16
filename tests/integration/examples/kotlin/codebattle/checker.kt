package solution

// a + b, checked the way Codebattle's generated Kotlin checkers do it: Gson,
// System.out swapped for a buffer around each call, one JSON record per line.
import kotlin.collections.*
import java.io.*
import java.util.*
import com.google.gson.Gson

fun main(args: Array<String>) {
  var oldOut_: PrintStream = System.out
  var executionResults_: ArrayList<AssertResult> = ArrayList<AssertResult>()

  try {
    var baos_: ByteArrayOutputStream = ByteArrayOutputStream()
    var newOut_: PrintStream = PrintStream(baos_, true, "UTF-8")
    System.setOut(newOut_)

    for ((a, b) in listOf(Pair(1L, 2L), Pair(-5L, 5L), Pair(4000000000L, 4000000000L))) {
      val start_ = System.nanoTime()
      val result_: Any = solution(a, b)
      val time_ = String.format("%.7f", (System.nanoTime() - start_) / 1_000_000_000.0)
      System.out.flush()
      val output_ = baos_.toString("UTF-8")
      baos_.reset()
      executionResults_.add(AssertResult(result_, output_, time_))
    }
    System.setOut(oldOut_)
    executionResults_.forEach { message -> println(message) }
  } catch (e: Exception) {
    System.setOut(oldOut_)
    println(ErrorMessage(e.toString()))
  }
}

data class AssertResult(val value: Any?, val output: String, val time: String) {
    private val type = "result"
    override fun toString(): String = Gson().toJson(this)
}

data class ErrorMessage(val value: String) {
    private val type = "error"
    override fun toString(): String = Gson().toJson(this)
}
