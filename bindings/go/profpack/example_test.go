package profpack_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"profpack/bindings/go/profpack"
)

func dataDir() string {
	if d := os.Getenv("PROFPACK_TEST_DATA"); d != "" {
		return d
	}
	return "../../../tests/data"
}

// Read a profile of any format and print its most costly functions.
func ExampleReadFile() {
	p, err := profpack.ReadFile(filepath.Join(dataDir(), "cachegrind", "cachegrind.workload.out"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	top, _ := p.Top(&profpack.TopOptions{Limit: 2})
	for _, f := range top {
		fmt.Println(f.Costs[0].Self, f.Name)
	}
	// Output:
	// 34023858 msort_with_tmp.part.0
	// 12964176 cmp
}

// Convert a profile for go tool pprof.
func ExampleProfile_Bytes() {
	p, err := profpack.ReadFile(filepath.Join(dataDir(), "xray", "fdr-v5-st.xray"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	pprof, err := p.Bytes(profpack.FormatPprof, nil)
	fmt.Println(err == nil, profpack.DetectFormat(pprof) == profpack.FormatPprof, pprof[0] == 0x1f)
	// Output: true true true
}

// A malformed input is an *Error with its position, and matches its status's sentinel.
func ExampleError() {
	_, err := profpack.ReadBytes([]byte("events: A\nfl=f.c\n3 4\n"), nil)
	var e *profpack.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, profpack.ErrMalformed), e.Format, e.Line, e.Offset)
	}
	// Output: true cachegrind 3 17
}

// Sum two runs, as cg_merge does.
func ExampleMerge() {
	dir := filepath.Join(dataDir(), "merge")
	a, _ := profpack.ReadFile(filepath.Join(dir, "cachegrind.workload.run1.out"), nil)
	b, _ := profpack.ReadFile(filepath.Join(dir, "cachegrind.workload.run2.out"), nil)
	defer a.Close()
	defer b.Close()
	m, err := profpack.Merge([]*profpack.Profile{a, b}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	ev, _ := m.Events()
	fmt.Println(ev[0].Name, ev[0].Total)
	// Output: Ir 221115697
}
