package solution;

public class Checker {
    public static void main(String[] args) {
        GaolRecords records = new GaolRecords();
        Solution s = new Solution();
        records.check(() -> s.solution(1, 2));
        records.check(() -> s.solution(-1, 1));
        records.finish();
    }
}
