package solution;

// a + b, checked the way Codebattle's generated Java checkers do it: Gson on
// the class path, System.out swapped for a buffer around each call, one JSON
// record per line.
import com.google.gson.Gson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

public class Checker {
    public static void main(String... args) {
        PrintStream original = System.out;
        List<Entry> entries = new ArrayList<>();
        long[][] calls = {{1, 2}, {-5, 5}, {4000000000L, 4000000000L}};
        try {
            Solution s = new Solution();
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            System.setOut(new PrintStream(buffer, true, "UTF-8"));
            for (long[] c : calls) {
                long start = System.nanoTime();
                Object result = s.solution(c[0], c[1]);
                double seconds = (System.nanoTime() - start) / 1_000_000_000.0;
                System.out.flush();
                entries.add(new Entry("result", result, buffer.toString("UTF-8"),
                        String.format(Locale.ROOT, "%.7f", seconds)));
                buffer.reset();
            }
            System.setOut(original);
            for (Entry e : entries) {
                System.out.println(e);
            }
        } catch (Exception e) {
            System.setOut(original);
            System.out.println(new Entry("error", e.getMessage(), null, null));
        }
    }
}

class Entry {
    private final String type;
    private final Object value;
    private final String output;
    private final String time;

    Entry(String type, Object value, String output, String time) {
        this.type = type;
        this.value = value;
        this.output = output;
        this.time = time;
    }

    @Override
    public String toString() {
        return new Gson().toJson(this);
    }
}
