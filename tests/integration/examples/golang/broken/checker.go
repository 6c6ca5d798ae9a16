package main

// a + b, with gaol's record helper (check/gaol_records.go): one record per
// call, one per line.
func main() {
	records := NewGaolRecords()
	records.Check(func() any { return solution(1, 2) })
	records.Check(func() any { return solution(-5, 5) })
	records.Check(func() any { return solution(4000000000, 4000000000) })
	records.Finish()
}
