namespace app
{
    public class Solution
    {
        public long solution(long a, long b)
        {
            return a + b   // missing semicolon
        }
    }
}
