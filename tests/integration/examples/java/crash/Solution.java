package solution;

// The second call has the program killed with SIGKILL (by the shell's kill,
// as a JVM cannot signal itself): the run's answer names the signal.
public class Solution {
    public Integer solution(Integer a, Integer b) {
        if (a < 0) {
            try {
                long pid = ProcessHandle.current().pid();
                new ProcessBuilder("/bin/sh", "-c", "kill -KILL " + pid).start().waitFor();
                Thread.sleep(10000);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }
        return a + b;
    }
}
