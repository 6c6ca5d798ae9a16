int solution(int a, int b) {
  print('adding $a and $b');
  return a + b;
}
