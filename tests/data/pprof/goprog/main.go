// A small program profiled with runtime/pprof: CPU time under goroutine labels (pprof.Do),
// inlined helpers, and a heap profile of what it keeps.
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

var keep [][]byte

//go:noinline
func hashWork(n int) byte {
	var b [32]byte
	for i := 0; i < n; i++ {
		b = sha256.Sum256(b[:])
	}
	return b[0]
}

func square(x int) int { return x * x } // inlined

func sumSquares(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += square(i) % 7
	}
	return s
}

//go:noinline
func allocate(n, size int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, size))
	}
}

func worker(ctx context.Context, kind string, deadline time.Time, wg *sync.WaitGroup) {
	defer wg.Done()
	pprof.Do(ctx, pprof.Labels("worker", kind), func(ctx context.Context) {
		for time.Now().Before(deadline) {
			if kind == "hash" {
				hashWork(2000)
			} else {
				sumSquares(200000)
			}
			allocate(2, 4096)
		}
	})
}

func main() {
	cpu := flag.String("cpu", "cpu.pb.gz", "")
	heap := flag.String("heap", "heap.pb.gz", "")
	dur := flag.Duration("d", 1500*time.Millisecond, "")
	flag.Parse()
	runtime.MemProfileRate = 64 << 10
	f, _ := os.Create(*cpu)
	pprof.StartCPUProfile(f)
	var wg sync.WaitGroup
	deadline := time.Now().Add(*dur)
	for _, k := range []string{"hash", "squares"} {
		wg.Add(1)
		go worker(context.Background(), k, deadline, &wg)
	}
	wg.Wait()
	pprof.StopCPUProfile()
	f.Close()
	h, _ := os.Create(*heap)
	runtime.GC()
	pprof.WriteHeapProfile(h)
	h.Close()
}
