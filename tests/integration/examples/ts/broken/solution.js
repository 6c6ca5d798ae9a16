function solution(a: number, b: number): number {
  return a + ;
}

export default solution;
