package main

// a + b, checked the way Codebattle's generated Go checkers do it: os.Stdout
// swapped for a pipe around each call, the records collected and written
// as one JSON array with encoding/json.
import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

type result struct {
	Type   string `json:"type"`
	Value  any    `json:"value"`
	Time   string `json:"time"`
	Output string `json:"output,omitempty"`
}

func main() {
	stdout_ := os.Stdout
	encoder_ := json.NewEncoder(os.Stdout)
	results_ := make([]result, 0, 3)
	calls_ := [][2]int64{{1, 2}, {-5, 5}, {4000000000, 4000000000}}
	for _, c := range calls_ {
		reader_, writer_, err_ := os.Pipe()
		if err_ == nil {
			os.Stdout = writer_
		}
		start_ := time.Now()
		value_ := solution(c[0], c[1])
		elapsed_ := time.Since(start_)
		result_ := result{Type: "result", Value: value_,
			Time: fmt.Sprintf("%.7f", float64(elapsed_.Nanoseconds())/float64(time.Second))}
		if writer_ != nil {
			writer_.Close()
		}
		if reader_ != nil {
			out_, _ := io.ReadAll(reader_)
			result_.Output = string(out_)
			reader_.Close()
		}
		results_ = append(results_, result_)
	}
	os.Stdout = stdout_
	if err_ := encoder_.Encode(results_); err_ != nil {
		fmt.Fprintln(stdout_, "Marshaler error")
	}
}
