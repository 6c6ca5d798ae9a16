package solution;

// a + b, with gaol's record helper: one record per call, one per line.
public class Checker {
    public static void main(String[] args) {
        GaolRecords records = new GaolRecords();
        Solution s = new Solution();
        records.check(() -> s.solution(1L, 2L));
        records.check(() -> s.solution(-5L, 5L));
        records.check(() -> s.solution(4000000000L, 4000000000L));
        records.finish();
    }
}
