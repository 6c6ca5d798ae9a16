// a + b, checked the way Codebattle's generated D checkers do it: its
// cb_runtime module (runTest, errorLine, finish), one record per line.
static import solution;
import cb_runtime;

void main() {
    string[] results;

    try {
        {
            long a1 = 1;
            long b1 = 2;
            results ~= runTest(() => solution.solution(a1, b1));
        }
        {
            long a2 = -5;
            long b2 = 5;
            results ~= runTest(() => solution.solution(a2, b2));
        }
        {
            long a3 = 4000000000;
            long b3 = 4000000000;
            results ~= runTest(() => solution.solution(a3, b3));
        }
    } catch (Throwable e) {
        results ~= errorLine(e.msg);
    }

    finish(results);
}
