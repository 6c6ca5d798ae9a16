def solution(a, b):
    print("adding", a, "and", b)
    return a + b
