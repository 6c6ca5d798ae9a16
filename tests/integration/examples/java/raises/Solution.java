package solution;

public class Solution {
    public Integer solution(Integer a, Integer b) {
        System.out.println("dividing " + a + " by " + b);
        return a / b;
    }
}
