// a + b, with gaol's record helper (check/GaolRecords.swift): one record per
// call, one per line.
@main
struct Checker {
    static func main() {
        let records = GaolRecords()
        records.check { solution(1, 2) }
        records.check { solution(-5, 5) }
        records.check { solution(4000000000, 4000000000) }
        records.finish()
    }
}
