package solution;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Write a Codebattle Java checker in a few lines.
 *
 * <p>A checker for POST /run (lang_slug "java") is check/Checker.java in
 * package {@code solution}, compiled with check/Solution.java; it prints one
 * Codebattle record per call, one JSON object per line, the way Codebattle's
 * own generated checkers do:
 *
 * <pre>
 * {"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
 * {"type":"error","time":"0.0000040","value":"/ by zero","output":""}
 * </pre>
 *
 * With this class (compiled only when a checker uses it) a checker is:
 *
 * <pre>
 * package solution;
 *
 * public class Checker {
 *     public static void main(String[] args) {
 *         GaolRecords records = new GaolRecords();   // captures System.out from here
 *         Solution s = new Solution();
 *         records.check(() -&gt; s.solution(1, 2));
 *         records.check(() -&gt; s.solution(10, 20));
 *         records.finish();
 *     }
 * }
 * </pre>
 *
 * <p>{@link #check} calls the lambda once and prints its record at once (so
 * the records before a crash are kept): "result" with the returned value as
 * Gson writes it (numbers, BigInteger, strings, lists, maps, arrays, plain
 * objects; NaN and infinities as JSON strings), or "error" with the
 * exception's message (its class name when it has none) for anything thrown,
 * StackOverflowError included.  "time" is the call's wall time in seconds with
 * 7 decimals; "output" what the call printed through System.out.  Records are
 * plain ASCII: other characters are \\u-escaped.  Gson is the one Codebattle's
 * checkers use, from /usr/share/java/gson.jar.
 */
public final class GaolRecords {
    /** A call whose value becomes the record's value; void calls return null. */
    @FunctionalInterface
    public interface Call {
        Object call() throws Throwable;
    }

    private final PrintStream out;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private final Gson gson = new GsonBuilder()
            .serializeNulls()
            .serializeSpecialFloatingPointValues()
            .disableHtmlEscaping()
            .create();
    private boolean finished;

    public GaolRecords() {
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.out.flush();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    /** Calls c, prints a "result" or "error" record; true when it returned. */
    public boolean check(Call c) {
        long start = System.nanoTime();
        Object value;
        try {
            value = c.call();
        } catch (Throwable e) {
            emit("error", gson.toJson(message(e)), start);
            return false;
        }
        String json;
        try {
            json = gson.toJson(value);
        } catch (RuntimeException | StackOverflowError e) {
            emit("error", gson.toJson("result not serialisable: " + message(e)), start);
            return false;
        }
        emit("result", json, start);
        return true;
    }

    public void result(Object value) {
        emit("result", gson.toJson(value), System.nanoTime());
    }

    public void error(String message) {
        emit("error", gson.toJson(message), System.nanoTime());
    }

    /** Puts System.out back; what was printed after the last record goes out as is. */
    public int finish() {
        if (!finished) {
            finished = true;
            System.out.flush();
            String rest = take();
            System.setOut(out);
            out.print(rest);
            out.flush();
        }
        return 0;
    }

    private static String message(Throwable e) {
        String m = e.getMessage();
        return m != null ? m : e.getClass().getName();
    }

    private String take() {
        System.out.flush();
        String text = captured.toString(StandardCharsets.UTF_8);
        captured.reset();
        return text;
    }

    private void emit(String type, String valueJson, long start) {
        String time = String.format(Locale.ROOT, "%.7f", (System.nanoTime() - start) / 1e9);
        String line = "{\"type\":" + gson.toJson(type)
                + ",\"time\":\"" + time + "\""
                + ",\"value\":" + valueJson
                + ",\"output\":" + gson.toJson(take()) + "}";
        out.println(ascii(line));
    }

    private static String ascii(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch < 0x7f) {
                b.append(ch);
            } else {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
            }
        }
        return b.toString();
    }
}
