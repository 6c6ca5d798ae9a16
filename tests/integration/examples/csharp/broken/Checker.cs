// a + b, with gaol's record helper (check/GaolRecords.cs): one record per
// call, one per line.
namespace app
{
    public class Checker
    {
        public static void Main()
        {
            var records = new Gaol.Records();
            var s = new Solution();
            records.Check(() => s.solution(1, 2));
            records.Check(() => s.solution(-5, 5));
            records.Check(() => s.solution(4000000000, 4000000000));
            records.Finish();
        }
    }
}
