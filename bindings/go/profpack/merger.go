package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Merge sums profiles into a new one, as cg_merge and `go tool pprof -proto A B` do: costs
// per function, line and call arc, stacks per identical stack. The inputs need the same events.
// names (may be nil) names each input in error messages.
func Merge(profiles []*Profile, names []string) (*Profile, error) {
	defer runtime.KeepAlive(profiles)
	if len(profiles) == 0 {
		return nil, &Error{StatusInvalidArgument, "profpack: Merge needs at least one profile", "", Unknown, Unknown}
	}
	mem := C.malloc(C.size_t(len(profiles)) * C.size_t(unsafe.Sizeof((*C.profpack_profile)(nil))))
	defer C.free(mem)
	hs := unsafe.Slice((**C.profpack_profile)(mem), len(profiles))
	for i, p := range profiles {
		hs[i] = p.handle()
	}
	var cn **C.char
	if names != nil {
		arr, free := cStrings(names)
		defer free()
		cn = arr
		if len(names) != len(profiles) {
			return nil, &Error{StatusInvalidArgument, "profpack: Merge needs one name per profile", "", Unknown, Unknown}
		}
	}
	var out *C.profpack_profile
	if err := call(func() C.profpack_status {
		return C.profpack_merge(&hs[0], cn, C.size_t(len(profiles)), &out)
	}); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// Merger merges profiles one at a time (profpack_merger), so that memory is bounded by the
// result rather than the sum of the inputs. Close it when done.
type Merger struct {
	m *C.profpack_merger
}

// NewMerger starts a merge.
func NewMerger() (*Merger, error) {
	var m *C.profpack_merger
	if err := call(func() C.profpack_status { return C.profpack_merger_new(&m) }); err != nil {
		return nil, err
	}
	mg := &Merger{m}
	runtime.SetFinalizer(mg, (*Merger).Close)
	return mg, nil
}

func (m *Merger) handle() *C.profpack_merger {
	if m == nil || m.m == nil {
		panic("profpack: use of a closed or nil Merger")
	}
	return m.m
}

// RenameEvent makes every input's event from count as event to; before the first Add.
func (m *Merger) RenameEvent(from, to string) error {
	defer runtime.KeepAlive(m)
	cf, ct := C.CString(from), C.CString(to)
	defer C.free(unsafe.Pointer(cf))
	defer C.free(unsafe.Pointer(ct))
	return call(func() C.profpack_status { return C.profpack_merger_rename_event(m.handle(), cf, ct) })
}

// Add adds a profile (which may be closed right after); name names it in errors.
func (m *Merger) Add(p *Profile, name string) error {
	defer runtime.KeepAlive(m)
	defer runtime.KeepAlive(p)
	cn := cStringOrNil(name)
	defer C.free(unsafe.Pointer(cn))
	return call(func() C.profpack_status { return C.profpack_merger_add(m.handle(), p.handle(), cn) })
}

// Finish returns the merged profile; at most once.
func (m *Merger) Finish() (*Profile, error) {
	defer runtime.KeepAlive(m)
	var out *C.profpack_profile
	if err := call(func() C.profpack_status { return C.profpack_merger_finish(m.handle(), &out) }); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// Close frees the merger. It is safe to call more than once.
func (m *Merger) Close() {
	if m.m != nil {
		C.profpack_merger_free(m.m)
		m.m = nil
		runtime.SetFinalizer(m, nil)
	}
}

// Diff returns current - base as a new profile with signed costs, as cg_diff does. opts may
// be nil.
func Diff(base, current *Profile, opts *DiffOptions) (*Profile, error) {
	defer runtime.KeepAlive(base)
	defer runtime.KeepAlive(current)
	var do C.profpack_diff_options
	C.profpack_diff_options_init(&do)
	if opts != nil {
		files, f1 := cStrings(opts.ModFilename)
		defer f1()
		funcs, f2 := cStrings(opts.ModFuncname)
		defer f2()
		renames, f3 := cStrings(opts.EventRenames)
		defer f3()
		do.mod_filename, do.mod_filename_count = files, C.size_t(len(opts.ModFilename))
		do.mod_funcname, do.mod_funcname_count = funcs, C.size_t(len(opts.ModFuncname))
		do.event_renames, do.event_renames_count = renames, C.size_t(len(opts.EventRenames))
		bn, cn := cStringOrNil(opts.BaseName), cStringOrNil(opts.CurrentName)
		defer C.free(unsafe.Pointer(bn))
		defer C.free(unsafe.Pointer(cn))
		do.base_name, do.current_name = bn, cn
	}
	var out *C.profpack_profile
	if err := call(func() C.profpack_status {
		return C.profpack_diff(base.handle(), current.handle(), &do, &out)
	}); err != nil {
		return nil, err
	}
	return wrap(out), nil
}
