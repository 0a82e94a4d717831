package profpack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func dataDir() string {
	if d := os.Getenv("PROFPACK_TEST_DATA"); d != "" {
		return d
	}
	return "../../../tests/data"
}

func TestRoundTripAndQueries(t *testing.T) {
	path := filepath.Join(dataDir(), "cachegrind", "cachegrind.workload.out")
	p, err := ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Format() != FormatCachegrind || p.Format().String() != "cachegrind" {
		t.Fatalf("format %v", p.Format())
	}
	ev, err := p.Events()
	if err != nil || len(ev) != 13 || ev[0].Name != "Ir" || ev[0].Total != 88804011 {
		t.Fatalf("events %v %v", ev, err)
	}
	ppk, err := p.Bytes(FormatPPK, new(WriteOptions).Set(WritePPKLevel, 19))
	if err != nil || DetectFormat(ppk) != FormatPPK {
		t.Fatalf("ppk: %v", err)
	}
	q, err := Read(bytes.NewReader(ppk), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if eq, err := p.Equal(q); err != nil || !eq {
		t.Fatalf("round trip not equal: %v", err)
	}
	out := filepath.Join(t.TempDir(), "back.out")
	if err := q.WriteFile(out, FormatCachegrind, nil); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(out)
	if string(a) != string(b) {
		t.Fatal("written Cachegrind differs from the original")
	}
	top, err := q.Top(&TopOptions{Limit: 2})
	if err != nil || len(top) != 2 || top[0].Name != "msort_with_tmp.part.0" || top[0].Costs[0].Self != 34023858 {
		t.Fatalf("top %v %v", top, err)
	}
	dr, err := q.EventIndex("Dr")
	if err != nil || dr != 3 {
		t.Fatalf("EventIndex %v %v", dr, err)
	}
	lines, err := q.LineCosts("/somewhere/else/workload.c", 0)
	if err != nil || len(lines) == 0 {
		t.Fatalf("lines %v %v", lines, err)
	}
	found := false
	for _, l := range lines {
		if l.Line == 7 && l.Cost == 12964176 {
			found = true
		}
	}
	if !found {
		t.Fatal("line 7 cost missing")
	}
}

func TestErrors(t *testing.T) {
	_, err := ReadBytes([]byte("events: A\nfl=f.c\n3 4\n"), nil)
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusMalformed || e.Line != 3 || e.Offset != 17 ||
		e.Format != "cachegrind" {
		t.Fatalf("want malformed at line 3, got %#v", err)
	}
	if !errors.Is(err, ErrMalformed) || errors.Is(err, ErrIO) || e.Status.String() != "malformed input" {
		t.Fatalf("errors.Is by status: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.out")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(empty, nil); err == nil || !strings.HasPrefix(err.Error(), empty+": ") {
		t.Fatalf("a read error names its file: %v", err)
	}
	_, err = ReadFile("/nonexistent/file", nil)
	if !errors.As(err, &e) || e.Status != StatusIO || !errors.Is(err, ErrIO) {
		t.Fatalf("want io error, got %v", err)
	}
	if _, err := ReadBytes(nil, nil); !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) {
		t.Fatalf("empty input: %v", err)
	}
	if FormatForPath("out/profile.pb.gz") != FormatPprof || FormatForPath("sum.out") != FormatUnknown {
		t.Fatal("FormatForPath")
	}
	if ParseFormat("xray") != FormatXRay || ParseFormat("nope") != FormatUnknown {
		t.Fatal("ParseFormat")
	}
	if Version() == "" || VersionNumber() <= 0 {
		t.Fatal("Version")
	}
}

func TestCapabilities(t *testing.T) {
	for _, c := range []struct {
		file string
		arcs bool
	}{{"cachegrind/cachegrind.workload.out", false}, {"callgrind/callgrind.workload.out", true}} {
		p, err := ReadFile(filepath.Join(dataDir(), c.file), nil)
		if err != nil {
			t.Fatal(err)
		}
		in, err := p.Info()
		p.Close()
		if err != nil || in.Capabilities.Has(HasCallArcs) != c.arcs || !in.Capabilities.Has(HasNames) {
			t.Fatalf("%s: capabilities %b, err %v", c.file, in.Capabilities, err)
		}
	}
}

func TestFindFunctions(t *testing.T) {
	p, err := ReadFile(filepath.Join(dataDir(), "callgrind", "callgrind.workload.out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for pattern, want := range map[string]int{"cmp": 1, "workload.c:cmp": 1, "^msort_with_tmp": 2, "nope": 0, "(": 0} {
		got, err := p.FindFunctions(pattern)
		if err != nil || len(got) != want {
			t.Fatalf("FindFunctions(%q): %d functions, %v; want %d", pattern, len(got), err, want)
		}
	}
	near, err := p.SimilarFunctions("cpm", 3)
	if err != nil || len(near) == 0 || near[0].Name != "cmp" {
		t.Fatalf("SimilarFunctions(cpm): %v %v", near, err)
	}
}

func TestReadFiles(t *testing.T) {
	var paths []string
	for _, n := range []string{"01", "02", "03"} {
		paths = append(paths, filepath.Join(dataDir(), "callgrind-threads", "callgrind.out.workload-"+n))
	}
	p, err := ReadFiles(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	threads, err := p.Threads()
	if err != nil || len(threads) != 3 {
		t.Fatalf("threads: %v %v", threads, err)
	}
}
