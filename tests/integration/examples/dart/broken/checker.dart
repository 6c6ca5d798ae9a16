// a + b, with gaol's record helper (lib/gaol_records.dart): one record per
// call, one per line.
import 'package:check/gaol_records.dart';
import 'package:check/solution.dart';

void main() {
  final records = Records();
  records.check(() => solution(1, 2));
  records.check(() => solution(-5, 5));
  records.check(() => solution(4000000000, 4000000000));
  records.finish();
}
