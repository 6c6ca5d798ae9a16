import Foundation

func solution(_ a: Int, _ b: Int) -> Int {
    print("adding \(a) and \(b)")
    return a + b
}
