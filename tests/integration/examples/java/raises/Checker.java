package solution;

// An exception in one call is that call's error record; the others go on.
public class Checker {
    public static void main(String[] args) {
        GaolRecords records = new GaolRecords();
        Solution s = new Solution();
        records.check(() -> s.solution(6, 3));
        records.check(() -> s.solution(1, 0));
        records.check(() -> s.solution(9, 3));
        records.finish();
    }
}
