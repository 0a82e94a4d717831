package profpack

import (
	"path/filepath"
	"testing"
)

// Merge, Diff and FunctionCost of an archive's members equal Merge, Diff and the figures of
// the profiles they were made from.
func TestArchiveQueries(t *testing.T) {
	var ps []*Profile
	for _, n := range []string{"01", "02", "03"} {
		p, err := ReadFile(filepath.Join(dataDir(), "callgrind-threads", "callgrind.out.workload-"+n), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ps = append(ps, p)
	}
	a, err := OpenArchive(filepath.Join(t.TempDir(), "a.ppka"), true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Add(ps, []string{"k=v"}, 5); err != nil {
		t.Fatal(err)
	}
	merged, err := a.Merge([]int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Merge(ps[:2], nil)
	if err != nil {
		t.Fatal(err)
	}
	if eq, err := merged.Equal(want); err != nil || !eq {
		t.Fatalf("Merge: equal %v, %v", eq, err)
	}
	d, err := a.Diff([]int{0, 1}, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	// Each side is a merge, even of one member.
	current, err := Merge(ps[2:], nil)
	if err != nil {
		t.Fatal(err)
	}
	wantD, err := Diff(want, current, nil)
	if err != nil {
		t.Fatal(err)
	}
	if eq, err := d.Equal(wantD); err != nil || !eq {
		t.Fatalf("Diff: equal %v, %v", eq, err)
	}
	// callgrind_annotate: cmp 6,305,184 Ir in part 2 and 6,658,992 in part 3, none in part 1.
	for i, w := range []uint64{0, 6305184, 6658992} {
		self, incl, n, err := a.FunctionCost(i, "cmp", "Ir")
		if err != nil || self != w || incl != w || n != map[bool]int{true: 1, false: 0}[w > 0] {
			t.Fatalf("member %d: cmp %d %d (%d functions), %v; want %d", i, self, incl, n, err, w)
		}
	}
	if _, err := a.Merge(nil); err == nil {
		t.Fatal("Merge of no member succeeded")
	}
}
