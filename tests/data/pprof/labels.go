package main

import (
	"context"
	"crypto/sha256"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"time"
)

//go:noinline
func hashWork(n int) byte {
	var s byte
	b := make([]byte, 4096)
	for i := 0; i < n; i++ {
		h := sha256.Sum256(b)
		s ^= h[0]
		b[0] = h[1]
	}
	return s
}

//go:noinline
func sortWork(n int) int {
	a := make([]int, n)
	for i := range a {
		a[i] = (i * 7919) % 10007
	}
	sort.Ints(a)
	return a[0]
}

func spin(d time.Duration, f func()) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		f()
	}
}

func main() {
	w1, _ := strconv.Atoi(os.Args[2])
	w2, _ := strconv.Atoi(os.Args[3])
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	pprof.Do(context.Background(), pprof.Labels("worker", "hash"), func(ctx context.Context) {
		spin(time.Duration(w1)*time.Millisecond, func() { hashWork(50) })
	})
	pprof.Do(context.Background(), pprof.Labels("worker", "sort"), func(ctx context.Context) {
		spin(time.Duration(w2)*time.Millisecond, func() { sortWork(5000) })
	})
	pprof.StopCPUProfile()
	f.Close()
	g, _ := os.Create(os.Args[1] + ".heap")
	pprof.WriteHeapProfile(g)
	g.Close()
}
