package main

import "fmt"

func solution(a int, b int) int {
	fmt.Printf("dividing %d by %d\n", a, b)
	return a / b
}
