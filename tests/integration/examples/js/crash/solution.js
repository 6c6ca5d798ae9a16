// The second call kills the program with SIGKILL: the run's answer names it.
const solution = (a, b) => {
  if (a < 0) {
    process.kill(process.pid, "SIGKILL");
  }
  return a + b;
};

module.exports = solution;
