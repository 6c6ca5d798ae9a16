package main

import "fmt"

func solution(a int64, b int64) int64 {
	fmt.Printf("adding %d and %d\n", a, b)
	return a + b
}
