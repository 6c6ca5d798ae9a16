const _ = require("lodash");

const solution = (a, b) => {
  console.log(`adding ${a} and ${b}`);
  return _.add(a, b);
};

module.exports = solution;
