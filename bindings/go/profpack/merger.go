package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Merger merges profiles one at a time (profpack_merger), so that memory is bounded by the
// result rather than the sum of the inputs. Close it when done; a method called after Close
// returns an error matching ErrClosed.
type Merger struct {
	mu sync.Mutex // a merge in progress is one goroutine's at a time
	m  *C.profpack_merger
}

// NewMerger starts a merge.
func NewMerger() (*Merger, error) {
	var m *C.profpack_merger
	if err := call(func() C.profpack_status { return C.profpack_merger_new(&m) }); err != nil {
		return nil, err
	}
	mg := &Merger{m: m}
	runtime.SetFinalizer(mg, (*Merger).Close)
	return mg, nil
}

// do runs f with the C handle, or returns ErrClosed's error after Close.
func (m *Merger) do(f func(h *C.profpack_merger) error) error {
	if m == nil {
		return closedError("nil Merger")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		return closedError("Merger")
	}
	return f(m.m)
}

// RenameEvent makes every input's event from count as event to; before the first Add.
func (m *Merger) RenameEvent(from, to string) error {
	if err := noNUL(from, to); err != nil {
		return err
	}
	return m.do(func(h *C.profpack_merger) error {
		cf, ct := C.CString(from), C.CString(to)
		defer C.free(unsafe.Pointer(cf))
		defer C.free(unsafe.Pointer(ct))
		return call(func() C.profpack_status { return C.profpack_merger_rename_event(h, cf, ct) })
	})
}

// Add adds a profile (which may be closed right after); name names it in errors.
func (m *Merger) Add(p *Profile, name string) error {
	if err := noNUL(name); err != nil {
		return err
	}
	return m.do(func(h *C.profpack_merger) error {
		return p.do(func(hp *C.profpack_profile) error {
			cn := cStringOrNil(name)
			defer C.free(unsafe.Pointer(cn))
			return call(func() C.profpack_status { return C.profpack_merger_add(h, hp, cn) })
		})
	})
}

// Finish returns the merged profile; at most once.
func (m *Merger) Finish() (*Profile, error) {
	var out *C.profpack_profile
	if err := m.do(func(h *C.profpack_merger) error {
		return call(func() C.profpack_status { return C.profpack_merger_finish(h, &out) })
	}); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// Close frees the merger (io.Closer); a second Close returns an error matching ErrClosed.
func (m *Merger) Close() error {
	return m.do(func(h *C.profpack_merger) error {
		C.profpack_merger_free(h)
		m.m = nil
		runtime.SetFinalizer(m, nil)
		return nil
	})
}

// withHandles runs f with the C handles of profiles, none of which may be closed meanwhile.
// Each distinct Profile is read-locked once for the whole call, however often it is listed:
// sync.RWMutex forbids taking a read lock twice, for a Close waiting between the two would
// deadlock with it. A nil Profile is an error matching ErrClosed, as for a method.
func withHandles(profiles []*Profile, f func(hs []*C.profpack_profile) error) error {
	seen := make(map[*Profile]bool, len(profiles))
	var distinct []*Profile
	for _, p := range profiles {
		if p == nil {
			return closedError("nil Profile")
		}
		if !seen[p] {
			seen[p] = true
			distinct = append(distinct, p)
		}
	}
	handle := make(map[*Profile]*C.profpack_profile, len(distinct))
	var next func(i int) error
	next = func(i int) error {
		if i == len(distinct) {
			hs := make([]*C.profpack_profile, len(profiles))
			for j, p := range profiles {
				hs[j] = handle[p]
			}
			return f(hs)
		}
		return distinct[i].do(func(h *C.profpack_profile) error {
			handle[distinct[i]] = h
			return next(i + 1)
		})
	}
	return next(0)
}

// Merge sums profiles into a new one, as cg_merge and `go tool pprof -proto A B` do: costs
// per function, line and call arc, stacks per identical stack. The inputs need the same events.
// names (may be nil) names each input in error messages.
func Merge(profiles []*Profile, names []string) (*Profile, error) {
	if len(profiles) == 0 {
		return nil, newError(StatusInvalidArgument, "Merge needs at least one profile")
	}
	if names != nil && len(names) != len(profiles) {
		return nil, newError(StatusInvalidArgument, "Merge needs one name per profile")
	}
	if err := noNUL(names...); err != nil {
		return nil, err
	}
	var out *C.profpack_profile
	err := withHandles(profiles, func(handles []*C.profpack_profile) error {
		mem := C.malloc(C.size_t(len(handles)) * C.size_t(unsafe.Sizeof((*C.profpack_profile)(nil))))
		defer C.free(mem)
		hs := unsafe.Slice((**C.profpack_profile)(mem), len(handles))
		copy(hs, handles)
		cn, free := cStrings(names)
		defer free()
		return call(func() C.profpack_status {
			return C.profpack_merge(&hs[0], cn, C.size_t(len(hs)), &out)
		})
	})
	if err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// Diff returns current - base as a new profile with signed costs, as cg_diff does. opts may
// be nil.
func Diff(base, current *Profile, opts *DiffOptions) (*Profile, error) {
	if opts != nil {
		for _, ss := range [][]string{opts.ModFilename, opts.ModFuncname, opts.EventRenames,
			{opts.BaseName, opts.CurrentName}} {
			if err := noNUL(ss...); err != nil {
				return nil, err
			}
		}
	}
	var out *C.profpack_profile
	err := withHandles([]*Profile{base, current}, func(hs []*C.profpack_profile) error {
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
		return call(func() C.profpack_status { return C.profpack_diff(hs[0], hs[1], &do, &out) })
	})
	if err != nil {
		return nil, err
	}
	return wrap(out), nil
}
