using System;
using System.Collections.Generic;

namespace app
{
    public class Solution
    {
        public long solution(long a, long b)
        {
            Console.WriteLine("adding " + a + " and " + b);
            return a + b;
        }
    }
}
