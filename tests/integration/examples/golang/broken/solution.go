package main

func solution(a int64, b int64) int64 {
	return a + b +
}
