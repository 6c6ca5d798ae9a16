int solution(int a, int b) {
  print('dividing $a by $b');
  if (b == 0) {
    throw ArgumentError('division by zero');
  }
  return a ~/ b;
}
