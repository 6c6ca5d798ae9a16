// The entry point of Codebattle's C# image (apps/runner/images/csharp/
// Program.cs does the same): its generated checkers have no Main, only
// app.Checker.Test.  `make test` compiles this file only when check/Checker.cs
// has no Main of its own.
namespace app
{
    class Program
    {
        static void Main(string[] args)
        {
            Checker.Test(true);
        }
    }
}
