const solution = (a, b) => {
  return a + ;
};

module.exports = solution;
