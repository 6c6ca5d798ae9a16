/*
 * GaolRecords.kt: write a Codebattle Kotlin checker in a few lines.
 *
 * A checker for POST /run (lang_slug "kotlin") is check/checker.kt, package
 * solution (as Codebattle's are), compiled with check/solution.kt; its main
 * runs as solution.CheckerKt.  It prints one Codebattle record per call, one
 * JSON object per line:
 *
 *   {"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
 *   {"type":"error","time":"0.0000040","value":"/ by zero","output":""}
 *
 * With this class (package gaol; `make prepare` precompiles it into
 * lib/gaol-records.jar, else it is compiled with the checker) a checker is:
 *
 *   package solution
 *
 *   import gaol.Records
 *
 *   fun main() {
 *       val records = Records()             // captures System.out from here
 *       records.check { solution(1, 2) }
 *       records.check { solution(10, 20) }
 *       records.finish()
 *   }
 *
 * check { ... } calls the block once and prints its record at once (so the
 * records before a crash are kept): "result" with the returned value as Gson
 * writes it (numbers, strings, lists, maps, arrays, data classes; NaN and
 * infinities as JSON strings), or "error" with the message of whatever it
 * threw (its class name when it has none), StackOverflowError included.
 * "time" is the call's wall time in seconds with 7 decimals; "output" what
 * the call printed through System.out (println).  Records are plain ASCII.
 * Gson is the one Codebattle's checkers use, /usr/share/java/gson.jar.
 */
package gaol

import com.google.gson.Gson
import com.google.gson.GsonBuilder
import com.google.gson.JsonPrimitive
import com.google.gson.JsonSerializer
import java.io.ByteArrayOutputStream
import java.io.FileDescriptor
import java.io.FileOutputStream
import java.io.PrintStream
import java.util.Locale

class Records {
    private val out = PrintStream(FileOutputStream(FileDescriptor.out), true, "UTF-8")
    private val captured = ByteArrayOutputStream()
    private val gson: Gson = GsonBuilder()
        .serializeNulls()
        .disableHtmlEscaping()
        .registerTypeAdapter(java.lang.Double::class.java, special<Double>())
        .registerTypeAdapter(java.lang.Float::class.java, special<Float>())
        .create()

    // NaN and the infinities as strings: JSON has no literal for them.
    private fun <T : Number> special() = JsonSerializer<T> { v, _, _ ->
        val d = v.toDouble()
        when {
            d.isNaN() -> JsonPrimitive("NaN")
            d.isInfinite() -> JsonPrimitive(if (d > 0) "Infinity" else "-Infinity")
            else -> JsonPrimitive(v)
        }
    }
    private var finished = false

    init {
        System.out.flush()
        System.setOut(PrintStream(captured, true, "UTF-8"))
    }

    /** Calls [f], prints a "result" or "error" record; true when it returned. */
    fun check(f: () -> Any?): Boolean {
        val start = System.nanoTime()
        val value = try {
            f()
        } catch (e: Throwable) {
            emit("error", gson.toJson(message(e)), start)
            return false
        }
        val json = try {
            gson.toJson(value)
        } catch (e: Throwable) {
            emit("error", gson.toJson("result not serialisable: " + message(e)), start)
            return false
        }
        emit("result", json, start)
        return true
    }

    fun result(value: Any?) {
        emit("result", gson.toJson(value), System.nanoTime())
    }

    fun error(message: String) {
        emit("error", gson.toJson(message), System.nanoTime())
    }

    /** Puts System.out back; what was printed after the last record goes out as is. */
    fun finish(): Int {
        if (!finished) {
            finished = true
            val rest = take()
            System.setOut(out)
            out.print(rest)
            out.flush()
        }
        return 0
    }

    private fun message(e: Throwable): String {
        val m = e.message
        return if (m.isNullOrEmpty()) e.javaClass.name else m
    }

    private fun take(): String {
        System.out.flush()
        val text = captured.toString("UTF-8")
        captured.reset()
        return text
    }

    private fun emit(type: String, valueJson: String, start: Long) {
        val time = String.format(Locale.ROOT, "%.7f", (System.nanoTime() - start) / 1e9)
        val line = "{\"type\":" + gson.toJson(type) + ",\"time\":\"" + time + "\",\"value\":" +
            valueJson + ",\"output\":" + gson.toJson(take()) + "}"
        out.println(ascii(line))
    }

    private fun ascii(s: String): String {
        val b = StringBuilder(s.length + 16)
        for (ch in s) {
            if (ch.toInt() < 0x7f) b.append(ch) else b.append(String.format(Locale.ROOT, "\\u%04x", ch.toInt()))
        }
        return b.toString()
    }
}
