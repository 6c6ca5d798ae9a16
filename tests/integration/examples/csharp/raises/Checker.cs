// An exception in one call (here the runtime's DivideByZeroException) is
// that call's error record; the others go on.
namespace app
{
    public class Checker
    {
        public static void Main()
        {
            var records = new Gaol.Records();
            var s = new Solution();
            records.Check(() => s.solution(6, 3));
            records.Check(() => s.solution(1, 0));
            records.Check(() => s.solution(9, 3));
            records.Finish();
        }
    }
}
