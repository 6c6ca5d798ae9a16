function solution(a: number, b: number): number {
  console.log(`dividing ${a} by ${b}`);
  if (b === 0) {
    throw new Error("division by zero");
  }
  return Math.trunc(a / b);
}

export default solution;
