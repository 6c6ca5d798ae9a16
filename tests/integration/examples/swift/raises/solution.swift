import Foundation

struct DivisionError: Error, CustomStringConvertible {
    var description: String { return "division by zero" }
}

func solution(_ a: Int, _ b: Int) throws -> Int {
    print("dividing \(a) by \(b)")
    if b == 0 {
        throw DivisionError()
    }
    return a / b
}
