const solution = (a, b) => {
  console.log(`dividing ${a} by ${b}`);
  if (b === 0) {
    throw new Error("division by zero");
  }
  return Math.trunc(a / b);
};

module.exports = solution;
