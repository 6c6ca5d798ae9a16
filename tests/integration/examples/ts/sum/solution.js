import * as _ from "lodash";

function solution(a: number, b: number): number {
  console.log(`adding ${a} and ${b}`);
  return _.add(a, b);
}

export default solution;
