package profpack

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every exported constant is the C constant it stands for (they are literals, for go doc).
func TestConstantsEqualC(t *testing.T) {
	cs := cConstants()
	if len(cs) < 30 {
		t.Fatalf("only %d constants", len(cs))
	}
	for _, c := range cs {
		if c.goVal != c.cVal {
			t.Errorf("%s = %d, C %d", c.name, c.goVal, c.cVal)
		}
	}
}

// A Profile and a Merger are io.Closers; every method after Close returns an error that
// matches ErrClosed, never a panic.
func TestUseAfterClose(t *testing.T) {
	var _ io.Closer = (*Profile)(nil)
	var _ io.Closer = (*Merger)(nil)
	p, err := ReadFile(filepath.Join(dataDir(), "callgrind", "callgrind.workload.out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ReadFile(filepath.Join(dataDir(), "callgrind", "callgrind.workload.out"), nil)
	defer q.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	closed := func(what string, err error) {
		t.Helper()
		var e *Error
		if !errors.Is(err, ErrClosed) || !errors.As(err, &e) || e.Status != StatusInvalidArgument {
			t.Errorf("%s after Close: %v", what, err)
		}
	}
	closed("Close", p.Close())
	_, err = p.Info()
	closed("Info", err)
	_, err = p.Events()
	closed("Events", err)
	_, err = p.EventIndex("Ir")
	closed("EventIndex", err)
	_, err = p.Warnings()
	closed("Warnings", err)
	_, err = p.Bytes(FormatPPK, nil)
	closed("Bytes", err)
	_, err = p.WriteFormat(io.Discard, FormatPPK, nil)
	closed("WriteFormat", err)
	closed("WriteFile", p.WriteFile(filepath.Join(t.TempDir(), "x.ppk"), FormatPPK, nil))
	_, err = p.Equal(q)
	closed("Equal", err)
	_, err = q.Equal(p)
	closed("Equal(closed)", err)
	_, err = p.View(nil)
	closed("View", err)
	_, err = p.Symbolize(nil)
	closed("Symbolize", err)
	_, err = p.Functions()
	closed("Functions", err)
	_, err = p.Function(0)
	closed("Function", err)
	_, err = p.FindFunctions("main")
	closed("FindFunctions", err)
	_, err = p.SimilarFunctions("main", 3)
	closed("SimilarFunctions", err)
	_, err = p.FunctionLine(0)
	closed("FunctionLine", err)
	_, _, err = p.FunctionCost(0, 0)
	closed("FunctionCost", err)
	_, err = p.FunctionCalls(0)
	closed("FunctionCalls", err)
	_, err = p.UnitsPerSecond()
	closed("UnitsPerSecond", err)
	_, err = p.Threads()
	closed("Threads", err)
	_, err = p.Top(nil)
	closed("Top", err)
	_, err = p.LineCosts("workload.c", 0)
	closed("LineCosts", err)
	_, err = p.Callers(0, 0)
	closed("Callers", err)
	_, err = p.Callees(0, 0)
	closed("Callees", err)
	_, err = Merge([]*Profile{q, p}, nil)
	closed("Merge", err)
	_, err = Diff(p, q, nil)
	closed("Diff", err)
	if p.Format() != FormatUnknown {
		t.Error("Format after Close")
	}
	var nilProfile *Profile
	_, err = nilProfile.Info()
	closed("a nil Profile's Info", err)

	m, err := NewMerger()
	if err != nil {
		t.Fatal(err)
	}
	closed("Add(closed profile)", m.Add(p, ""))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	closed("Merger.Close", m.Close())
	closed("Merger.Add", m.Add(q, ""))
	closed("Merger.RenameEvent", m.RenameEvent("a", "b"))
	_, err = m.Finish()
	closed("Merger.Finish", err)

	// An Archive's second Close is ErrClosed too, and Add of a nil or closed Profile an
	// error (not a panic), as Merge's is.
	var _ io.Closer = (*Archive)(nil)
	a, err := OpenArchive(filepath.Join(t.TempDir(), "a.ppka"), true, 0)
	if err != nil {
		t.Fatal(err)
	}
	closed("Archive.Add(nil)", a.Add([]*Profile{nil}, nil, 0))
	closed("Archive.Add(q, nil)", a.Add([]*Profile{q, nil}, nil, 0))
	closed("Archive.Add(closed)", a.Add([]*Profile{p}, nil, 0))
	_, err = Merge([]*Profile{q, nil}, nil)
	closed("Merge(nil)", err)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	closed("Archive.Close", a.Close())
	closed("Archive.Add", a.Add([]*Profile{q}, nil, 0))
	var nilArchive *Archive
	closed("a nil Archive's Close", nilArchive.Close())
}

// A call given the same Profile twice locks it once: a Close arriving in between must not
// deadlock the call (sync.RWMutex forbids a second read lock while a writer waits), and the
// figures are those of the profile listed twice.
func TestSameProfileTwiceWithClose(t *testing.T) {
	path := filepath.Join(dataDir(), "callgrind", "callgrind.workload.out")
	q, err := ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	m, err := Merge([]*Profile{q, q}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	eq, _ := q.Events()
	em, _ := m.Events()
	if em[0].Total != 2*eq[0].Total {
		t.Fatalf("Merge([q, q]): %v, want twice %v", em[0], eq[0])
	}
	a, err := OpenArchive(filepath.Join(t.TempDir(), "a.ppka"), true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Add([]*Profile{q, q}, nil, 0); err != nil {
		t.Fatal(err)
	}
	if ms, err := a.Members(); err != nil || len(ms) != 2 {
		t.Fatalf("Archive.Add([q, q]): %v, %v", ms, err)
	}
	deadline := time.After(60 * time.Second)
	for i := 0; i < 200; i++ {
		p, err := ReadFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 3)
		go func() {
			m, err := Merge([]*Profile{p, p}, nil)
			if err == nil {
				m.Close()
			}
			done <- err
		}()
		go func() { done <- a.Add([]*Profile{p, p}, nil, 0) }()
		go func() { done <- p.Close() }()
		for j := 0; j < 3; j++ {
			select {
			case err := <-done:
				if err != nil && !errors.Is(err, ErrClosed) {
					t.Fatal(err)
				}
			case <-deadline:
				t.Fatalf("round %d: a call given the same Profile twice hangs beside Close", i)
			}
		}
	}
}

// Errors name their file as os.PathError does, and unwrap to their status's sentinel.
func TestErrorPath(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.out")
	if err := os.WriteFile(bad, []byte("events: A\nfl=f.c\n3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(bad, nil)
	var e *Error
	if !errors.As(err, &e) || e.Path != bad || e.Line != 3 || !errors.Is(err, ErrMalformed) ||
		errors.Unwrap(err) != ErrMalformed || !strings.HasPrefix(err.Error(), bad+": cachegrind: line 3") ||
		strings.Count(err.Error(), bad) != 1 {
		t.Fatalf("ReadFile(%s): %#v", bad, err)
	}
	good := filepath.Join(dataDir(), "callgrind-threads", "callgrind.out.workload-01")
	badPart := filepath.Join(dir, "callgrind.out.workload-02")
	if err := os.WriteFile(badPart, []byte("# callgrind format\nversion: 1\npart: 2\nthread: 2\nevents: Ir\nfn=a\n3 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFiles([]string{good, badPart}, nil)
	if !errors.As(err, &e) || e.Path != badPart || e.Line != 7 || !strings.HasPrefix(err.Error(), badPart+": callgrind: line 7") {
		t.Fatalf("ReadFiles: %#v", err)
	}
	_, err = ReadBytes([]byte("events: A\nfl=f.c\n3 4\n"), nil)
	if !errors.As(err, &e) || e.Path != "" || e.Offset != 17 {
		t.Fatalf("ReadBytes: %#v", err)
	}
	p, _ := ReadFile(good, nil)
	defer p.Close()
	out := filepath.Join(dir, "no", "such", "dir", "x.ppk")
	err = p.WriteFile(out, FormatPPK, nil)
	if !errors.As(err, &e) || e.Path != out || !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), out) {
		t.Fatalf("WriteFile into a missing directory: %#v", err)
	}
}

// WriteFormat writes to any io.Writer what Bytes returns.
func TestWriteFormat(t *testing.T) {
	p, err := ReadFile(filepath.Join(dataDir(), "cachegrind", "cachegrind.workload.out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var buf bytes.Buffer
	n, err := p.WriteFormat(&buf, FormatCachegrind, nil)
	want, _ := os.ReadFile(filepath.Join(dataDir(), "cachegrind", "cachegrind.workload.out"))
	if err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("WriteFormat: %d bytes, %v", n, err)
	}
	if _, err := p.WriteFormat(&buf, FormatXRay, nil); !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Cachegrind as XRay: %v", err)
	}
}

// cliTop runs `profpack top ARGS --tsv`: per row self, inclusive, file, name, object.
func cliTop(t *testing.T, args ...string) [][]string {
	t.Helper()
	cli := os.Getenv("PROFPACK_CLI")
	if cli == "" {
		t.Skip("PROFPACK_CLI not set")
	}
	b, err := exec.Command(cli, append(append([]string{"top"}, args...), "--tsv")...).Output()
	if err != nil {
		t.Fatalf("top %v: %v", args, err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		c := strings.Split(l, "\t")
		rows = append(rows, []string{c[0], c[1], c[3], c[4], c[5]})
	}
	return rows
}

// Top's options: several events in one call, ranked by any of them, by inclusive cost, one
// thread; a difference's costs are negative int64 values. Each as the CLI prints it.
func TestTopOptions(t *testing.T) {
	cg := filepath.Join(dataDir(), "cachegrind", "cachegrind.workload.out")
	p, err := ReadFile(cg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	same := func(what string, rows []TopRow, k int, cli [][]string) {
		t.Helper()
		if len(rows) != len(cli) {
			t.Fatalf("%s: %d rows, CLI %d", what, len(rows), len(cli))
		}
		for i, r := range rows {
			got := []string{strconv.FormatInt(r.Costs[k].Self, 10), strconv.FormatInt(r.Costs[k].Inclusive, 10),
				r.File, r.Name, r.Object}
			if strings.Join(got, "\t") != strings.Join(cli[i], "\t") {
				t.Fatalf("%s row %d: %v, CLI %v", what, i, got, cli[i])
			}
		}
	}
	rows, err := p.Top(&TopOptions{Events: []int{5, 3}, SortEvent: 3, Limit: 8})
	if err != nil {
		t.Fatal(err)
	}
	same("by Dr", rows, 1, cliTop(t, cg, "-n", "8", "--event", "Dr"))
	ids, err := p.TopFunctions(&TopOptions{SortEvent: 3, Limit: 8})
	if err != nil || len(ids) != len(rows) {
		t.Fatalf("TopFunctions: %v %v", ids, err)
	}
	for i, id := range ids {
		if id != rows[i].ID {
			t.Fatalf("TopFunctions %v, Top row %d is %d", ids, i, rows[i].ID)
		}
	}
	rows, _ = p.Top(&TopOptions{Events: []int{5, 3}, SortEvent: 5, Limit: 8, Inclusive: true})
	same("by DLmr inclusive", rows, 0, cliTop(t, cg, "-n", "8", "--event", "DLmr", "--inclusive"))
	all, _ := p.Top(nil)
	fns, _ := p.Functions()
	if len(all) != len(fns) || len(all[0].Costs) != 13 {
		t.Fatalf("Top(nil): %d rows of %d costs", len(all), len(all[0].Costs))
	}
	if _, err := p.Top(&TopOptions{SortEvent: 13}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("SortEvent 13: %v", err)
	}
	if _, err := p.Top(&TopOptions{Limit: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Limit -1: %v", err)
	}

	mt := filepath.Join(dataDir(), "xray", "fdr-v5-mt-manybuf.xray")
	x, _ := ReadFile(mt, nil)
	defer x.Close()
	for i := 0; i < 4; i++ {
		i := i
		rows, err := x.Top(&TopOptions{Thread: &i, Limit: 6})
		if err != nil {
			t.Fatal(err)
		}
		same("thread "+strconv.Itoa(i), rows, 0, cliTop(t, mt, "-n", "6", "--thread", strconv.Itoa(i)))
		ids, err := x.TopFunctions(&TopOptions{Thread: &i, Limit: 6})
		if err != nil || len(ids) != len(rows) || ids[0] != rows[0].ID {
			t.Fatalf("TopFunctions of thread %d: %v %v", i, ids, err)
		}
	}

	dir := filepath.Join(dataDir(), "merge")
	a, _ := ReadFile(filepath.Join(dir, "cachegrind.workload.run1.out"), nil)
	b, _ := ReadFile(filepath.Join(dir, "cachegrind.workload.run2.out"), nil)
	defer a.Close()
	defer b.Close()
	d, err := Diff(b, a, nil) // run 1 costs less: negative costs
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out := filepath.Join(t.TempDir(), "diff.cachegrind")
	if err := d.WriteFile(out, FormatCachegrind, nil); err != nil {
		t.Fatal(err)
	}
	rows, _ = d.Top(&TopOptions{Limit: 20})
	same("difference", rows, 0, cliTop(t, out, "-n", "20"))
	negative := false
	for _, r := range rows {
		self, _, _ := d.FunctionCost(r.ID, 0)
		negative = negative || r.Costs[0].Self < 0
		if self != r.Costs[0].Self {
			t.Fatalf("FunctionCost %d, Top %d", self, r.Costs[0].Self)
		}
	}
	if !negative {
		t.Fatal("a difference with no negative cost in its top 20")
	}
}

// Close while other goroutines query: each query either answers or returns ErrClosed; Close
// waits for the calls in progress (go test -race).
func TestCloseWhileQuerying(t *testing.T) {
	p, err := ReadFile(filepath.Join(dataDir(), "callgrind", "callgrind.workload.out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			for j := 0; j < 50; j++ {
				if _, err := p.Top(&TopOptions{Limit: 3}); err != nil {
					if !errors.Is(err, ErrClosed) {
						done <- err
						return
					}
					break
				}
			}
			done <- nil
		}()
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// A NUL inside a string argument would end the C string there ("a.out\x00.x" read as
// "a.out"): it is an invalid argument, and nothing is read, found or written.
func TestNULInStrings(t *testing.T) {
	path := filepath.Join(dataDir(), "callgrind", "callgrind.workload.out")
	invalid := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", what, err)
		}
	}
	_, err := ReadFile(path+"\x00.ignored", nil)
	invalid("ReadFile", err)
	_, err = ReadFiles([]string{path, path + "\x00"}, nil)
	invalid("ReadFiles", err)
	_, err = ReadFile(path, &ReadOptions{BinaryPath: []string{"/x\x00y"}})
	invalid("ReadOptions.BinaryPath", err)
	p, err := ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if i, err := p.EventIndex("Ir"); err != nil || i != 0 {
		t.Fatalf("EventIndex(Ir): %d, %v", i, err)
	}
	_, err = p.EventIndex("Ir\x00junk")
	invalid("EventIndex", err)
	_, err = p.FindFunctions("ma\x00in")
	invalid("FindFunctions", err)
	_, err = p.LineCosts("workload.c\x00", 0)
	invalid("LineCosts", err)
	out := filepath.Join(t.TempDir(), "out.ppk")
	invalid("WriteFile", p.WriteFile(out+"\x00evil", FormatPPK, nil))
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("WriteFile wrote %s: %v", out, err)
	}
	_, err = Merge([]*Profile{p, p}, []string{"a\x00b", "c"})
	invalid("Merge names", err)
	_, err = Diff(p, p, &DiffOptions{BaseName: "a\x00b"})
	invalid("Diff", err)
	_, err = OpenArchive(filepath.Join(t.TempDir(), "a.ppka")+"\x00x", true, 0)
	invalid("OpenArchive", err)
	if f := ParseFormat("ppk\x00x"); f != FormatUnknown {
		t.Errorf("ParseFormat: %v", f)
	}
}
