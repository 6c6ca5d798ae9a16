package solution;

public class Solution {
    public Long solution(Long a, Long b) {
        return a + b   // missing semicolon
    }
}
