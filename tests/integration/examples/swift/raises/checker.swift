// A thrown error in one call is that call's error record; the others go on.
@main
struct Checker {
    static func main() {
        let records = GaolRecords()
        records.check { try solution(6, 3) }
        records.check { try solution(1, 0) }
        records.check { try solution(9, 3) }
        records.finish()
    }
}
