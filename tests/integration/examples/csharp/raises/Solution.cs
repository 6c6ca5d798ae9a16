using System;

namespace app
{
    public class Solution
    {
        public int solution(int a, int b)
        {
            Console.WriteLine("dividing " + a + " by " + b);
            return a / b;
        }
    }
}
