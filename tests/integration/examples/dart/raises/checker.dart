// An exception in one call is that call's error record; the others go on.
import 'package:check/gaol_records.dart';
import 'package:check/solution.dart';

void main() {
  final records = Records();
  records.check(() => solution(6, 3));
  records.check(() => solution(1, 0));
  records.check(() => solution(9, 3));
  records.finish();
}
