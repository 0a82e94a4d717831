package profpack

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A profile of every format, as the CLI's --json sees it.
var samples = []string{
	"callgrind/callgrind.workload.threads-combined.out",
	"cachegrind/cachegrind.workload.out",
	"gperftools/workload.64le.prof",
	"xray/fdr-v5-mt-manybuf.xray",
	"dcpi/medium.dcpi",
}

// cliJSON runs the profpack CLI (PROFPACK_CLI) with --json and decodes its document.
func cliJSON(t *testing.T, out interface{}, args ...string) {
	t.Helper()
	cli := os.Getenv("PROFPACK_CLI")
	if cli == "" {
		t.Skip("PROFPACK_CLI not set")
	}
	b, err := exec.Command(cli, append(args, "--json")...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", cli, args, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

type cliFunction struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	File      string `json:"file"`
	Line      uint64 `json:"line"`
	Object    string `json:"object"`
	Self      int64  `json:"self"`
	Inclusive int64  `json:"inclusive"`
	Calls     int64  `json:"calls"`
	Callers   []struct {
		ID        int   `json:"id"`
		Calls     int64 `json:"calls"`
		Inclusive int64 `json:"inclusive"`
	} `json:"callers"`
	Callees []struct {
		ID        int   `json:"id"`
		Calls     int64 `json:"calls"`
		Inclusive int64 `json:"inclusive"`
	} `json:"callees"`
}

// Every figure the CLI prints, from the binding, for a profile of every format.
func TestEveryFormatAgainstCLI(t *testing.T) {
	for _, rel := range samples {
		rel := rel
		t.Run(rel, func(t *testing.T) {
			path := filepath.Join(dataDir(), rel)
			p, err := ReadFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			var info struct {
				Format    string `json:"format"`
				Version   string `json:"format_version"`
				IRBytes   uint64 `json:"ir_bytes"`
				Parts     uint64 `json:"parts"`
				Records   uint64 `json:"records"`
				Functions uint64 `json:"functions"`
				Files     uint64 `json:"files"`
				Objects   uint64 `json:"objects"`
				Signed    bool   `json:"signed_costs"`
				Events    []struct {
					Name     string `json:"name"`
					LongName string `json:"long_name"`
					Total    int64  `json:"total"`
				} `json:"events"`
				Threads []struct {
					PID      uint32 `json:"pid"`
					ThreadID uint32 `json:"thread_id"`
				} `json:"threads"`
			}
			cliJSON(t, &info, "info", path)
			in, err := p.Info()
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(in.Format, in.FormatVersion, in.IRBytes, in.Parts, in.Records,
				in.Functions, in.Files, in.Objects, in.SignedCosts)
			want := fmt.Sprint(info.Format, info.Version, info.IRBytes, info.Parts, info.Records,
				info.Functions, info.Files, info.Objects, info.Signed)
			if got != want || p.Format().String() != info.Format {
				t.Fatalf("Info %s, CLI %s", got, want)
			}
			events, err := p.Events()
			if err != nil || len(events) != len(info.Events) || int(in.Events) != len(events) {
				t.Fatalf("Events %v %v", events, err)
			}
			for i, e := range events {
				if e.Name != info.Events[i].Name || e.LongName != info.Events[i].LongName ||
					e.Total != info.Events[i].Total {
					t.Fatalf("event %d: %v, CLI %v", i, e, info.Events[i])
				}
				if j, err := p.EventIndex(e.Name); err != nil || j != i {
					t.Fatalf("EventIndex(%s) = %d %v", e.Name, j, err)
				}
			}
			threads, err := p.Threads()
			if err != nil || len(threads) != len(info.Threads) {
				t.Fatalf("Threads %v %v", threads, err)
			}
			for i, th := range threads {
				if th.PID != info.Threads[i].PID || th.ThreadID != info.Threads[i].ThreadID {
					t.Fatalf("thread %d: %v, CLI %v", i, th, info.Threads[i])
				}
			}

			var top struct {
				Event          string        `json:"event"`
				UnitsPerSecond float64       `json:"units_per_second"`
				Functions      []cliFunction `json:"functions"`
			}
			cliJSON(t, &top, "top", path, "-n", "10")
			costs, err := p.Top(&TopOptions{Limit: 10})
			if err != nil || len(costs) != len(top.Functions) {
				t.Fatalf("Top %v %v", costs, err)
			}
			if _, err := p.UnitsPerSecond(); err != nil {
				t.Fatalf("UnitsPerSecond: %v", err)
			}
			events, err = p.Events()
			if err != nil {
				t.Fatalf("Events: %v", err)
			}
			for e, ev := range events {
				if ev.Name != top.Event {
					continue
				}
				ups, err := p.EventUnitsPerSecond(e)
				if err != nil || ups != top.UnitsPerSecond {
					t.Fatalf("EventUnitsPerSecond(%d) %v, CLI %v (%v)", e, ups, top.UnitsPerSecond, err)
				}
			}
			all, err := p.Functions()
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range costs {
				w := top.Functions[i]
				line, _ := p.FunctionLine(c.ID)
				calls, _ := p.FunctionCalls(c.ID)
				self, incl, _ := p.FunctionCost(c.ID, 0)
				if c.ID != w.ID || c.Name != w.Name || c.File != w.File || c.Object != w.Object ||
					c.Costs[0].Self != w.Self || c.Costs[0].Inclusive != w.Inclusive ||
					line != w.Line || calls != w.Calls || c.Line != w.Line || c.Calls != w.Calls ||
					self != w.Self || incl != w.Inclusive || len(c.Costs) != len(events) {
					t.Fatalf("top %d: %+v line %d calls %d, CLI %+v", i, c, line, calls, w)
				}
				if all[c.ID] != c.Function {
					t.Fatalf("Functions()[%d] = %+v, Top %+v", c.ID, all[c.ID], c.Function)
				}
			}
			if len(costs) == 0 {
				return
			}
			// Callers and callees of the top function.
			var calls struct {
				Matches []cliFunction `json:"matches"`
			}
			cliJSON(t, &calls, "calls", path, costs[0].Name)
			for _, m := range calls.Matches {
				if m.ID != costs[0].ID {
					continue
				}
				callers, err1 := p.Callers(m.ID, 0)
				callees, err2 := p.Callees(m.ID, 0)
				if err1 != nil || err2 != nil || len(callers) != len(m.Callers) || len(callees) != len(m.Callees) {
					t.Fatalf("calls of %s: %v %v (%v %v), CLI %+v", m.Name, callers, callees, err1, err2, m)
				}
				for i, c := range callers {
					w := m.Callers[i]
					if c.Function != w.ID || c.Calls != w.Calls || c.Inclusive != w.Inclusive {
						t.Fatalf("caller %d: %+v, CLI %+v", i, c, w)
					}
				}
				for i, c := range callees {
					w := m.Callees[i]
					if c.Function != w.ID || c.Calls != w.Calls || c.Inclusive != w.Inclusive {
						t.Fatalf("callee %d: %+v, CLI %+v", i, c, w)
					}
				}
			}
			// Every format converts to pprof.
			if b, err := p.Bytes(FormatPprof, nil); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
				t.Fatalf("pprof: %v", err)
			}
		})
	}
}

// A view shows one thread; the profile it came from is unchanged.
func TestViews(t *testing.T) {
	p, err := ReadFile(filepath.Join(dataDir(), "xray", "fdr-v5-mt-manybuf.xray"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	threads, _ := p.Threads()
	ev, _ := p.Events()
	var sum int64
	for i := range threads {
		i := i
		v, err := p.View(&ViewOptions{Thread: &i})
		if err != nil {
			t.Fatal(err)
		}
		e, _ := v.Events()
		sum += e[0].Total
		v.Close()
	}
	if len(threads) != 4 || sum != ev[0].Total {
		t.Fatalf("%d threads, sum %d of %d", len(threads), sum, ev[0].Total)
	}
	n := len(threads)
	if _, err := p.View(&ViewOptions{Thread: &n}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("thread out of range: %v", err)
	}
	// An XRay trace's ids named from its binary.
	q, err := ReadFile(filepath.Join(dataDir(), "xray", "fdr-v5-st.xray"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	named, err := q.View(&ViewOptions{Binary: filepath.Join(dataDir(), "xray", "st.bin")})
	if err != nil {
		t.Fatal(err)
	}
	defer named.Close()
	top, err := named.Top(&TopOptions{Limit: 1})
	if err != nil || top[0].Name != "fib(int)" {
		t.Fatalf("named top %v %v", top, err)
	}
	var e *Error
	if _, err := q.View(&ViewOptions{Binary: "/nonexistent/bin"}); !errors.Is(err, ErrIO) ||
		!errors.As(err, &e) || e.Path != "/nonexistent/bin" {
		t.Fatalf("missing binary: %v", err)
	}
}

// Symbolization names a gperftools profile's addresses from the binary beside it.
func TestSymbolize(t *testing.T) {
	dir := filepath.Join(dataDir(), "symbolize")
	p, err := ReadFile(filepath.Join(dir, "hot.prof"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := p.Symbolize(&SymbolizeOptions{BinaryPath: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fns, _ := s.Functions()
	names := map[string]bool{}
	for _, f := range fns {
		names[f.Name] = true
	}
	if !names["mix"] || !names["fold"] {
		t.Fatalf("symbolized names: %v", names)
	}
	lines, err := s.LineCosts("hot.c", 0)
	if err != nil || len(lines) == 0 {
		t.Fatalf("line costs %v %v", lines, err)
	}
	// Every line cost in one source file: the files' lines add up to the lines of all.
	files, err := s.SourceFiles()
	if err != nil || len(files) == 0 {
		t.Fatalf("source files %v %v", files, err)
	}
	hot := false
	for _, f := range files {
		hot = hot || strings.HasSuffix(f, "hot.c")
	}
	if !hot {
		t.Fatalf("source files without hot.c: %v", files)
	}
	// An XRay trace without its binary is refused.
	x, _ := ReadFile(filepath.Join(dataDir(), "xray", "fdr-v5-st.xray"), nil)
	defer x.Close()
	if _, err := x.Symbolize(nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("XRay without binary: %v", err)
	}
	xs, err := x.Symbolize(&SymbolizeOptions{Binary: filepath.Join(dataDir(), "xray", "st-g.bin")})
	if err != nil {
		t.Fatal(err)
	}
	defer xs.Close()
	warn, err := xs.Warnings()
	if err != nil {
		t.Fatal(err)
	}
	_ = warn // st-g.bin is another build of st: its id count may differ (a warning), or not
	// A perf recording's kernel frames, named from the recorded kernel's kallsyms.
	perf, err := ReadFile(filepath.Join(dataDir(), "perf", "spin.data"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer perf.Close()
	ks, err := perf.Symbolize(&SymbolizeOptions{
		BinaryPath: []string{filepath.Join(dataDir(), "perf")},
		Kallsyms:   filepath.Join(dataDir(), "perf", "kallsyms.txt")})
	if err != nil {
		t.Fatal(err)
	}
	defer ks.Close()
	// Some function of the kernel's object has a name of the excerpt (not its address).
	table, err := os.ReadFile(filepath.Join(dataDir(), "perf", "kallsyms.txt"))
	if err != nil {
		t.Fatal(err)
	}
	excerpt := map[string]bool{}
	for _, line := range strings.Split(string(table), "\n") {
		if fields := strings.Fields(line); len(fields) >= 3 {
			excerpt[fields[2]] = true
		}
	}
	kfns, _ := ks.Functions()
	kernel := false
	for _, f := range kfns {
		kernel = kernel || (strings.HasPrefix(f.Object, "[kernel.kallsyms]") && excerpt[f.Name])
	}
	if !kernel {
		t.Fatalf("no kernel name from kallsyms.txt in %d functions", len(kfns))
	}
}

// Merging sums; a difference is signed; both as cg_merge and cg_diff compute them.
func TestMergeAndDiff(t *testing.T) {
	dir := filepath.Join(dataDir(), "merge")
	a, _ := ReadFile(filepath.Join(dir, "cachegrind.workload.run1.out"), nil)
	b, _ := ReadFile(filepath.Join(dir, "cachegrind.workload.run2.out"), nil)
	defer a.Close()
	defer b.Close()
	ea, _ := a.Events()
	eb, _ := b.Events()
	m, err := Merge([]*Profile{a, b}, []string{"run1", "run2"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	em, _ := m.Events()
	if em[0].Total != ea[0].Total+eb[0].Total || m.Format() != FormatCachegrind {
		t.Fatalf("merge %v of %v + %v", em[0], ea[0], eb[0])
	}
	mg, err := NewMerger()
	if err != nil {
		t.Fatal(err)
	}
	defer mg.Close()
	if err := mg.RenameEvent("Ir", "Ir"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Profile{a, b} {
		if err := mg.Add(p, ""); err != nil {
			t.Fatal(err)
		}
	}
	m2, err := mg.Finish()
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if eq, err := m.Equal(m2); err != nil || !eq {
		t.Fatalf("Merger and Merge differ: %v", err)
	}
	if _, err := Merge(nil, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("zero inputs: %v", err)
	}
	d, err := Diff(a, b, &DiffOptions{ModFilename: []string{"s/run[12]//"}, BaseName: "run1", CurrentName: "run2"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	in, _ := d.Info()
	ed, _ := d.Events()
	if !in.SignedCosts || ed[0].Total != eb[0].Total-ea[0].Total {
		t.Fatalf("diff %v, info %+v", ed[0], in)
	}
	if _, err := d.Bytes(FormatGperftools, nil); !errors.Is(err, ErrUnsupported) &&
		!errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a difference as gperftools: %v", err)
	}
}

// Write parameters are keyed and checked against their bounds.
func TestWriteOptions(t *testing.T) {
	lo, hi, def, err := WriteParamBounds(WritePPKLevel)
	if err != nil || lo != 1 || hi != 22 || def != 3 {
		t.Fatalf("bounds %d %d %d %v", lo, hi, def, err)
	}
	if _, _, _, err := WriteParamBounds(WriteDCPIImage); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("string parameter bounds: %v", err)
	}
	p, _ := ReadFile(filepath.Join(dataDir(), "xray", "fdr-v5-st.xray"), nil)
	defer p.Close()
	if _, err := p.Bytes(FormatPPK, new(WriteOptions).Set(WritePPKLevel, 23)); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("level 23: %v", err)
	}
	b, err := p.Bytes(FormatXRay, new(WriteOptions).Set(WriteXRayVersion, 3).Set(WriteXRayMode, 1))
	if err != nil || b[0] != 3 {
		t.Fatalf("XRay version 3: %v", err)
	}
	g, _ := ReadFile(filepath.Join(dataDir(), "gperftools", "workload.64le.prof"), nil)
	defer g.Close()
	be, err := g.Bytes(FormatGperftools, new(WriteOptions).Set(WriteGperftoolsSlotSize, 8).Set(WriteGperftoolsOrder, 2))
	want, _ := os.ReadFile(filepath.Join(dataDir(), "gperftools", "workload.64be.prof"))
	if err != nil || string(be) != string(want) {
		t.Fatalf("big-endian gperftools: %v", err)
	}
	d, _ := ReadFile(filepath.Join(dataDir(), "dcpi", "small.dcpi"), nil)
	defer d.Close()
	if _, err := d.Bytes(FormatDCPI, new(WriteOptions).SetString(WriteDCPIImage, "0")); err != nil {
		t.Fatalf("DCPI image 0: %v", err)
	}
	if _, err := d.Bytes(FormatDCPI, new(WriteOptions).Set(WriteDCPIImage, 0)); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("string parameter as an integer: %v", err)
	}
	out := filepath.Join(t.TempDir(), "x.pb.gz")
	if err := p.WriteFile(out, FormatPprof, nil); err != nil {
		t.Fatal(err)
	}
	// DeferIR moves work, never changes an output.
	lazy, err := ReadFile(filepath.Join(dataDir(), "gperftools", "workload.64le.prof"), &ReadOptions{DeferIR: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	for _, f := range []Format{FormatPprof, FormatPPK, FormatGperftools} {
		a, errA := lazy.Bytes(f, nil)
		b, errB := g.Bytes(f, nil)
		if errA != nil || errB != nil || len(a) == 0 || string(a) != string(b) {
			t.Fatalf("%v read with DeferIR differs: %v %v", f, errA, errB)
		}
	}
}

// One profile queried from many goroutines (go test -race).
func TestConcurrentQueries(t *testing.T) {
	p, err := ReadFile(filepath.Join(dataDir(), "callgrind", "callgrind.workload.out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := p.Top(&TopOptions{Limit: 5, Inclusive: i%2 == 0}); err != nil {
				errs <- err
			}
			if v, err := p.View(nil); err != nil {
				errs <- err
			} else {
				v.Close()
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// The one format name table, both ways.
func TestFormats(t *testing.T) {
	for f := FormatPPK; f <= FormatPerfScript; f++ {
		if ParseFormat(f.String()) != f {
			t.Fatalf("%d: %q", f, f.String())
		}
	}
	if !strings.Contains(StatusIO.String(), "i/o") {
		t.Fatal(StatusIO.String())
	}
	b, _ := os.ReadFile(filepath.Join(dataDir(), "gperftools", "workload.64le.prof"))
	if DetectFormat(b) != FormatGperftools {
		t.Fatal("DetectFormat")
	}
}

// Tags select the samples of a pprof profile by label, as pprof's -tagfocus: go-cpu.pb.gz's
// two workers (tests/data/pprof/goprog) split its samples, 13 and 14 of 27 (go tool pprof
// -tagfocus=worker=hash: 130ms of 270ms at 10ms a sample).
func TestViewTags(t *testing.T) {
	p, err := ReadFile(filepath.Join(dataDir(), "pprof", "go-cpu.pb.gz"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	total := func(q *Profile) int64 {
		ev, err := q.Events()
		if err != nil {
			t.Fatal(err)
		}
		return ev[0].Total
	}
	got := map[string]int64{}
	for _, sel := range []string{"worker=^hash$", "worker=squares", "worker=a", "worker=none"} {
		v, err := p.View(&ViewOptions{Tags: []string{sel}})
		if err != nil {
			t.Fatal(sel, err)
		}
		got[sel] = total(v)
		v.Close()
	}
	if got["worker=^hash$"] != 13 || got["worker=squares"] != 14 || got["worker=a"] != total(p) ||
		got["worker=none"] != 0 {
		t.Fatalf("samples per selector %v of %d", got, total(p))
	}
	// Every selector must match: no sample is of both workers.
	both, err := p.View(&ViewOptions{Tags: []string{"worker=hash", "worker=squares"}})
	if err != nil || total(both) != 0 {
		t.Fatalf("both workers: %v", err)
	}
	both.Close()
	if _, err := p.View(&ViewOptions{Tags: []string{"worker"}}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a selector without '=': %v", err)
	}
	g, err := ReadFile(filepath.Join(dataDir(), "gperftools", "workload.64le.prof"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.View(&ViewOptions{Tags: []string{"k=v"}}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("samples without labels: %v", err)
	}
}

// Naming on read: hot.prof's addresses named from the binary in a BinaryPath directory as the
// profile is read (from memory, so the binary's modification time is not compared).
func TestReadSymbolize(t *testing.T) {
	dir := filepath.Join(dataDir(), "symbolize")
	data, err := os.ReadFile(filepath.Join(dir, "hot.prof"))
	if err != nil {
		t.Fatal(err)
	}
	// Each function's name, with its source file.
	files := func(opts *ReadOptions) map[string]string {
		p, err := ReadBytes(data, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		fns, err := p.Functions()
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, f := range fns {
			m[f.Name] = f.File
		}
		return m
	}
	names := func(opts *ReadOptions) map[string]bool {
		m := map[string]bool{}
		for name := range files(opts) {
			m[name] = true
		}
		return m
	}
	empty := t.TempDir()
	t.Setenv("PROFPACK_BINARY_PATH", empty)
	if n := names(&ReadOptions{Symbolize: true, BinaryPath: []string{dir}}); !n["mix"] || !n["fold"] {
		t.Fatalf("named on read: %v", n)
	}
	// Without Symbolize, or with no directory holding the binary, addresses stay.
	if n := names(&ReadOptions{BinaryPath: []string{dir}}); n["mix"] {
		t.Fatalf("named without Symbolize: %v", n)
	}
	if n := names(&ReadOptions{Symbolize: true, BinaryPath: []string{empty}}); n["mix"] {
		t.Fatalf("named from an empty directory: %v", n)
	}
	// SymbolTablesOnly: the same functions, named from the symbol table without a source file;
	// Symbolize names mix in hot.c.
	full := files(&ReadOptions{Symbolize: true, BinaryPath: []string{dir}})
	tables := files(&ReadOptions{Symbolize: true, SymbolTablesOnly: true, BinaryPath: []string{dir}})
	if file, ok := tables["mix"]; !ok || file != "" || !strings.HasSuffix(full["mix"], "/hot.c") {
		t.Fatalf("symbol tables only: %v; with DWARF: %v", tables, full)
	}
	// NoLines: DWARF's functions (fold, inlined, among them) without their source files.
	noLines := files(&ReadOptions{Symbolize: true, NoLines: true, BinaryPath: []string{dir}})
	if file, ok := noLines["fold"]; !ok || file != "" || noLines["mix"] != "" {
		t.Fatalf("no lines: %v", noLines)
	}
}

// A V8 CPU profile reads as FormatCpuprofile.
func TestCpuprofileFormat(t *testing.T) {
	if ParseFormat("cpuprofile") != FormatCpuprofile || FormatCpuprofile.String() != "cpuprofile" {
		t.Fatalf("%q", FormatCpuprofile.String())
	}
	files, _ := filepath.Glob(filepath.Join(dataDir(), "cpuprofile", "*.cpuprofile"))
	if len(files) == 0 {
		t.Fatal("no .cpuprofile in tests/data/cpuprofile")
	}
	p, err := ReadFile(files[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Format() != FormatCpuprofile {
		t.Fatalf("%s read as %v", files[0], p.Format())
	}
}

// A perf.data recording reads as FormatPerf.
func TestPerfFormat(t *testing.T) {
	for _, f := range []Format{FormatPerf, FormatPerfScript} {
		if ParseFormat(f.String()) != f {
			t.Fatalf("%d: %q", f, f.String())
		}
	}
	p, err := ReadFile(filepath.Join(dataDir(), "perf", "spin.data"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Format() != FormatPerf {
		t.Fatalf("spin.data read as %v", p.Format())
	}
}

// Every format is described, and each of its file names maps back to it.
func TestFormatInfo(t *testing.T) {
	all := Formats()
	if len(all) != int(FormatPerfScript) {
		t.Fatalf("%d formats", len(all))
	}
	for _, f := range all {
		if f.Name != f.Format.String() || f.Description == "" || !f.Readable ||
			f.Writable == (f.Format == FormatCpuprofile || f.Format == FormatPerf ||
				f.Format == FormatPerfScript) ||
			f.WritesLines != (f.Writable && f.Format != FormatFolded && f.Format != FormatTraceEvent) {
			t.Fatalf("%+v", f)
		}
		for _, e := range f.Endings {
			if FormatForPath("dir/x"+e) != f.Format {
				t.Fatalf("%s: %s", f.Name, e)
			}
		}
		for _, n := range f.FileNames {
			if FormatForPath("dir/"+strings.TrimSuffix(n, "*")+"1") != f.Format {
				t.Fatalf("%s: %s", f.Name, n)
			}
		}
	}
	if _, err := FormatUnknown.Info(); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("unknown: %v", err)
	}
}
