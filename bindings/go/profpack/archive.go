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

// Archive is a .ppka archive of many profiles (profpack_archive). Close it when done; a method
// called after Close returns an error matching ErrClosed.
type Archive struct {
	mu sync.Mutex
	a  *C.profpack_archive
}

// ArchiveMember is one member of an archive, from its index (nothing decoded).
type ArchiveMember struct {
	ID          uint64
	Format      string
	Time        int64 // seconds since 1970 UTC
	Labels      map[string]string
	StoredBytes uint64
	IRBytes     uint64
}

// OpenArchive opens the archive at path; writable opens it for Add and Compact (creating it).
// level is the zstd level of what is added (0: the default, 19).
func OpenArchive(path string, writable bool, level int) (*Archive, error) {
	if err := noNUL(path); err != nil {
		return nil, err
	}
	var o C.profpack_archive_options
	C.profpack_archive_options_init(&o)
	if writable {
		o.writable = 1
	}
	if level != 0 {
		o.level = C.int(level)
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var a *C.profpack_archive
	if err := call(func() C.profpack_status { return C.profpack_archive_open(cp, &o, &a) }); err != nil {
		return nil, err
	}
	ar := &Archive{a: a}
	runtime.SetFinalizer(ar, (*Archive).Close)
	return ar, nil
}

// Close releases the archive (and its lock) (io.Closer); a second Close returns an error
// matching ErrClosed, as Profile's and Merger's do.
func (a *Archive) Close() error {
	return a.do(func(h *C.profpack_archive) error {
		C.profpack_archive_close(h)
		a.a = nil
		runtime.SetFinalizer(a, nil)
		return nil
	})
}

func (a *Archive) do(f func(h *C.profpack_archive) error) error {
	if a == nil {
		return closedError("nil Archive")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.a == nil {
		return closedError("Archive")
	}
	return f(a.a)
}

// Members lists every member from the index.
func (a *Archive) Members() ([]ArchiveMember, error) {
	var out []ArchiveMember
	err := a.do(func(h *C.profpack_archive) error {
		var n C.size_t
		if err := call(func() C.profpack_status { return C.profpack_archive_count(h, &n) }); err != nil {
			return err
		}
		for i := C.size_t(0); i < n; i++ {
			var m C.profpack_archive_member
			m.struct_size = C.uint32_t(unsafe.Sizeof(m))
			if err := call(func() C.profpack_status { return C.profpack_archive_member_info(h, i, &m) }); err != nil {
				return err
			}
			am := ArchiveMember{ID: uint64(m.id), Format: C.GoString(m.format), Time: int64(m.time),
				Labels: map[string]string{}, StoredBytes: uint64(m.stored_bytes), IRBytes: uint64(m.ir_bytes)}
			for l := C.size_t(0); l < m.label_count; l++ {
				var k, v *C.char
				if err := call(func() C.profpack_status { return C.profpack_archive_member_label(h, i, l, &k, &v) }); err != nil {
					return err
				}
				am.Labels[C.GoString(k)] = C.GoString(v)
			}
			out = append(out, am)
		}
		return nil
	})
	return out, err
}

// Read decodes member index (of Members) as a profile.
func (a *Archive) Read(index int) (*Profile, error) {
	var p *C.profpack_profile
	err := a.do(func(h *C.profpack_archive) error {
		return call(func() C.profpack_status { return C.profpack_archive_read(h, C.size_t(index), &p) })
	})
	if err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// Add adds profiles as one segment with labels ("key=value") and time, and commits it. A
// closed or nil Profile among them is an error matching ErrClosed, as for Merge.
func (a *Archive) Add(profiles []*Profile, labels []string, time int64) error {
	if err := noNUL(labels...); err != nil {
		return err
	}
	return a.do(func(h *C.profpack_archive) error {
		return withHandles(profiles, func(hs []*C.profpack_profile) error {
			ps := C.malloc(C.size_t(len(profiles)+1) * C.size_t(unsafe.Sizeof(uintptr(0))))
			defer C.free(ps)
			copy(unsafe.Slice((**C.profpack_profile)(ps), len(profiles)+1), hs)
			ls := C.malloc(C.size_t(len(labels)+1) * C.size_t(unsafe.Sizeof(uintptr(0))))
			defer C.free(ls)
			la := unsafe.Slice((**C.char)(ls), len(labels)+1)
			for i, l := range labels {
				la[i] = C.CString(l)
				defer C.free(unsafe.Pointer(la[i]))
			}
			return call(func() C.profpack_status {
				return C.profpack_archive_add(h, (**C.profpack_profile)(ps), C.size_t(len(profiles)),
					(**C.char)(ls), C.size_t(len(labels)), C.int64_t(time))
			})
		})
	})
}

// Verify decodes and checks every member; it returns how many were checked.
func (a *Archive) Verify() (int, error) {
	var n C.size_t
	err := a.do(func(h *C.profpack_archive) error {
		return call(func() C.profpack_status { return C.profpack_archive_verify(h, &n) })
	})
	return int(n), err
}

// Compact rewrites the archive as one segment with one dictionary.
func (a *Archive) Compact() error {
	return a.do(func(h *C.profpack_archive) error {
		return call(func() C.profpack_status { return C.profpack_archive_compact(h) })
	})
}

// sizeTs copies indices into C memory (at least one element), freed by the returned function.
func sizeTs(indices []int) (*C.size_t, func()) {
	p := C.malloc(C.size_t(len(indices)+1) * C.size_t(unsafe.Sizeof(C.size_t(0))))
	s := unsafe.Slice((*C.size_t)(p), len(indices)+1)
	for i, x := range indices {
		s[i] = C.size_t(x)
	}
	return (*C.size_t)(p), func() { C.free(p) }
}

// Merge merges the members at indices (of Members), read one at a time, into a new profile.
func (a *Archive) Merge(indices []int) (*Profile, error) {
	var p *C.profpack_profile
	err := a.do(func(h *C.profpack_archive) error {
		ix, free := sizeTs(indices)
		defer free()
		return call(func() C.profpack_status {
			return C.profpack_archive_merge(h, ix, C.size_t(len(indices)), &p)
		})
	})
	if err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// Diff returns the merge of the members at current less the merge of those at base, as Diff
// takes the difference of two profiles.
func (a *Archive) Diff(base, current []int) (*Profile, error) {
	var p *C.profpack_profile
	err := a.do(func(h *C.profpack_archive) error {
		b, freeB := sizeTs(base)
		defer freeB()
		c, freeC := sizeTs(current)
		defer freeC()
		return call(func() C.profpack_status {
			return C.profpack_archive_diff(h, b, C.size_t(len(base)), c, C.size_t(len(current)), nil, &p)
		})
	})
	if err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// FunctionCost is one member's self and inclusive cost of the functions named exactly
// function, for event (its short name; "" for the member's first), and how many there are.
func (a *Archive) FunctionCost(index int, function, event string) (self, inclusive uint64, matched int, err error) {
	if err = noNUL(function, event); err != nil {
		return
	}
	err = a.do(func(h *C.profpack_archive) error {
		cf := C.CString(function)
		defer C.free(unsafe.Pointer(cf))
		var ce *C.char
		if event != "" {
			ce = C.CString(event)
			defer C.free(unsafe.Pointer(ce))
		}
		var s, in C.uint64_t
		var n C.size_t
		if err := call(func() C.profpack_status {
			return C.profpack_archive_function_cost(h, C.size_t(index), cf, ce, &s, &in, &n)
		}); err != nil {
			return err
		}
		self, inclusive, matched = uint64(s), uint64(in), int(n)
		return nil
	})
	return
}
