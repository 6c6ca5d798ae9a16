package main

// A panic in one call (here the runtime's integer division by zero) is that
// call's error record; the others go on.
func main() {
	records := NewGaolRecords()
	records.Check(func() any { return solution(6, 3) })
	records.Check(func() any { return solution(1, 0) })
	records.Check(func() any { return solution(9, 3) })
	records.Finish()
}
