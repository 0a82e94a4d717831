package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import (
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Profile is a profile in memory (profpack_profile). It never changes after it is made, so
// its methods may run from several goroutines at once. Close it when done; a method called
// after Close returns an error matching ErrClosed.
type Profile struct {
	mu     sync.RWMutex // held for reading by every call into C, for writing by Close
	p      *C.profpack_profile
	signed atomic.Int32 // 0: not asked yet, 1: unsigned costs, 2: signed (a difference)
}

func wrap(p *C.profpack_profile) *Profile {
	pr := &Profile{p: p}
	runtime.SetFinalizer(pr, (*Profile).Close)
	return pr
}

// do runs f with the C handle, or returns ErrClosed's error after Close.
func (p *Profile) do(f func(h *C.profpack_profile) error) error {
	if p == nil {
		return closedError("nil Profile")
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.p == nil {
		return closedError("Profile")
	}
	return f(p.p)
}

// ReadFile reads a profile of any supported format, or a .ppk; the format comes from the
// content. opts may be nil. A failure is an *Error whose Path is path.
func ReadFile(path string, opts *ReadOptions) (*Profile, error) {
	if err := opts.check(path); err != nil {
		return nil, err
	}
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	co, free := opts.c()
	defer free()
	var p *C.profpack_profile
	if err := callPath(path, func() C.profpack_status { return C.profpack_read_file(cs, co, &p) }); err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// ReadFiles reads files that are parts of one profile as that profile: valgrind's
// --separate-threads=yes writes a Callgrind file per thread (callgrind.out.PID-01, -02, ...),
// each a thread of the result. One path is ReadFile. opts may be nil. A failure is an *Error
// whose Path is the file at fault.
func ReadFiles(paths []string, opts *ReadOptions) (*Profile, error) {
	if len(paths) == 0 {
		return nil, newError(StatusInvalidArgument, "ReadFiles: no paths")
	}
	if err := opts.check(paths...); err != nil {
		return nil, err
	}
	cs := C.malloc(C.size_t(len(paths)) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(cs)
	list := unsafe.Slice((**C.char)(cs), len(paths))
	for i, path := range paths {
		list[i] = C.CString(path)
		defer C.free(unsafe.Pointer(list[i]))
	}
	co, free := opts.c()
	defer free()
	var p *C.profpack_profile
	if err := call(func() C.profpack_status {
		return C.profpack_read_files((**C.char)(cs), C.size_t(len(paths)), co, &p)
	}); err != nil {
		e := err.(*Error)
		for _, path := range paths {
			if strings.HasPrefix(e.Message, path+": ") {
				e.Path = path
			}
		}
		return nil, e
	}
	return wrap(p), nil
}

// ReadBytes reads a profile from memory. opts may be nil.
func ReadBytes(data []byte, opts *ReadOptions) (*Profile, error) {
	var p *C.profpack_profile
	if err := opts.check(); err != nil {
		return nil, err
	}
	var ptr unsafe.Pointer
	if len(data) > 0 {
		ptr = C.CBytes(data)
		defer C.free(ptr)
	}
	co, free := opts.c()
	defer free()
	if err := call(func() C.profpack_status {
		return C.profpack_read_memory(ptr, C.size_t(len(data)), co, &p)
	}); err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// Read reads a profile from r to its end. opts may be nil.
func Read(r io.Reader, opts *ReadOptions) (*Profile, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return ReadBytes(data, opts)
}

// Close frees the profile (io.Closer). It waits for calls in progress on other goroutines;
// a second Close returns an error matching ErrClosed.
func (p *Profile) Close() error {
	if p == nil {
		return closedError("nil Profile")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.p == nil {
		return closedError("Profile")
	}
	C.profpack_profile_free(p.p)
	p.p = nil
	runtime.SetFinalizer(p, nil)
	return nil
}

// WriteFile writes the profile in format f to path, atomically. opts may be nil. A failure
// is an *Error whose Path is path.
func (p *Profile) WriteFile(path string, f Format, opts *WriteOptions) error {
	return p.do(func(h *C.profpack_profile) error {
		co, free, err := opts.c()
		if err != nil {
			return err
		}
		defer free()
		if err := noNUL(path); err != nil {
			return err
		}
		cs := C.CString(path)
		defer C.free(unsafe.Pointer(cs))
		return callPath(path, func() C.profpack_status {
			return C.profpack_write_file(h, C.profpack_format(f), cs, co)
		})
	})
}

// Bytes returns the profile written in format f, e.g. FormatPprof for go tool pprof. opts may
// be nil.
func (p *Profile) Bytes(f Format, opts *WriteOptions) ([]byte, error) {
	var out []byte
	err := p.do(func(h *C.profpack_profile) error {
		co, free, err := opts.c()
		if err != nil {
			return err
		}
		defer free()
		var buf unsafe.Pointer
		var size C.size_t
		if err := call(func() C.profpack_status {
			return C.profpack_write_memory(h, C.profpack_format(f), co, &buf, &size)
		}); err != nil {
			return err
		}
		defer C.profpack_free(buf)
		out = unsafe.Slice((*byte)(buf), int(size))
		out = append([]byte(nil), out...)
		return nil
	})
	return out, err
}

// WriteFormat writes the profile in format f to w and returns the number of bytes written.
// opts may be nil.
func (p *Profile) WriteFormat(w io.Writer, f Format, opts *WriteOptions) (int64, error) {
	b, err := p.Bytes(f, opts)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// Format is the format the profile was originally read from (a .ppk remembers it);
// FormatUnknown after Close.
func (p *Profile) Format() Format {
	f := FormatUnknown
	p.do(func(h *C.profpack_profile) error { f = Format(C.profpack_profile_format(h)); return nil })
	return f
}

// Info holds whole-profile figures (profpack_info).
type Info struct {
	Format        Format
	FormatVersion string // as the file states it, or ""
	Parts         uint64 // Callgrind dumps/threads; 1 for Cachegrind
	Events        uint64
	Records       uint64 // cost lines, samples, trace records or histogram chunks
	Functions     uint64 // distinct function names
	Files         uint64
	Objects       uint64 // ELF objects, mappings or images
	Strings       uint64
	IRBytes       uint64 // size of the uncompressed IR
	SignedCosts   bool   // a difference of profiles: costs may be negative
	Capabilities  Capability
}

// Capability is what a profile holds (Info.Capabilities): a query of what it lacks answers
// with nothing. Its values are the C constants'.
type Capability uint32

// The bits of Capability.
const (
	HasCallArcs   Capability = 0x01 // PROFPACK_HAS_CALL_ARCS: caller -> callee arcs with inclusive costs
	HasCallCounts Capability = 0x02 // PROFPACK_HAS_CALL_COUNTS: how often each function and arc was called
	HasLines      Capability = 0x04 // PROFPACK_HAS_LINES: self cost per source line
	HasAddresses  Capability = 0x08 // PROFPACK_HAS_ADDRESSES: self cost per instruction address
	HasStacks     Capability = 0x10 // PROFPACK_HAS_STACKS: whole call stacks
	HasTimeline   Capability = 0x20 // PROFPACK_HAS_TIMELINE: when each call began and ended
	HasThreads    Capability = 0x40 // PROFPACK_HAS_THREADS: figures per thread (View)
	HasNames      Capability = 0x80 // PROFPACK_HAS_NAMES: functions have names, not only addresses or ids
)

// Has reports whether every bit of c2 is in c.
func (c Capability) Has(c2 Capability) bool { return c&c2 == c2 }

// Info returns whole-profile figures.
func (p *Profile) Info() (Info, error) {
	var in Info
	err := p.do(func(h *C.profpack_profile) error {
		var ci C.profpack_info
		C.profpack_info_init(&ci)
		if err := call(func() C.profpack_status { return C.profpack_profile_info(h, &ci) }); err != nil {
			return err
		}
		in = Info{Format(ci.format), C.GoString(ci.format_version), uint64(ci.parts),
			uint64(ci.events), uint64(ci.records), uint64(ci.functions), uint64(ci.files),
			uint64(ci.objects), uint64(ci.strings), uint64(ci.ir_bytes), ci.signed_costs != 0,
			Capability(ci.capabilities)}
		return nil
	})
	return in, err
}

// isSigned says whether the profile's costs are signed (a difference), asked once.
func (p *Profile) isSigned(h *C.profpack_profile) bool {
	if s := p.signed.Load(); s != 0 {
		return s == 2
	}
	var ci C.profpack_info
	C.profpack_info_init(&ci)
	if C.profpack_profile_info(h, &ci) != C.PROFPACK_OK {
		return false // the query that follows reports the failure
	}
	s := int32(1)
	if ci.signed_costs != 0 {
		s = 2
	}
	p.signed.Store(s)
	return s == 2
}

// toInt64 is a cost or count of the C API as int64: a difference's two's complement, or
// another profile's value, capped at math.MaxInt64 as pprof caps its int64 values.
func toInt64(v C.uint64_t, signed bool) int64 {
	if signed || uint64(v) <= math.MaxInt64 {
		return int64(v)
	}
	return math.MaxInt64
}

// Warnings are what the reader said about the input (e.g. a truncated trace that was still
// loaded), oldest first.
func (p *Profile) Warnings() ([]string, error) {
	var out []string
	err := p.do(func(h *C.profpack_profile) error {
		var n C.size_t
		if err := call(func() C.profpack_status { return C.profpack_profile_warnings(h, nil, 0, &n) }); err != nil || n == 0 {
			return err
		}
		ws := make([]*C.char, n)
		if err := call(func() C.profpack_status { return C.profpack_profile_warnings(h, &ws[0], n, &n) }); err != nil {
			return err
		}
		for _, w := range ws[:minInt(int(n), len(ws))] {
			out = append(out, C.GoString(w))
		}
		return nil
	})
	return out, err
}

// Event is a cost event with its total over the whole profile (or the view's thread);
// Total is negative where a difference's is.
type Event struct {
	Name, LongName string
	Total          int64
}

// Events lists the cost events in column order.
func (p *Profile) Events() ([]Event, error) {
	var out []Event
	err := p.do(func(h *C.profpack_profile) error {
		var n C.size_t
		if err := call(func() C.profpack_status { return C.profpack_profile_events(h, nil, 0, &n) }); err != nil || n == 0 {
			return err
		}
		buf := make([]C.profpack_event, n)
		if err := call(func() C.profpack_status { return C.profpack_profile_events(h, &buf[0], n, &n) }); err != nil {
			return err
		}
		signed := p.isSigned(h)
		for _, e := range buf[:minInt(int(n), len(buf))] {
			out = append(out, Event{C.GoString(e.name), C.GoString(e.long_name), toInt64(e.total, signed)})
		}
		return nil
	})
	return out, err
}

// EventIndex returns the index of the event with short name name (e.g. "Ir").
func (p *Profile) EventIndex(name string) (int, error) {
	var i C.size_t
	if err := noNUL(name); err != nil {
		return 0, err
	}
	err := p.do(func(h *C.profpack_profile) error {
		cs := C.CString(name)
		defer C.free(unsafe.Pointer(cs))
		return call(func() C.profpack_status { return C.profpack_profile_event_index(h, cs, &i) })
	})
	return int(i), err
}

// Equal reports whether two profiles hold the same IR (profpack_profile_equal; the CLI's
// equal).
func (p *Profile) Equal(q *Profile) (bool, error) {
	var eq C.int
	err := p.do(func(h *C.profpack_profile) error {
		return q.do(func(hq *C.profpack_profile) error {
			return call(func() C.profpack_status { return C.profpack_profile_equal(h, hq, &eq) })
		})
	})
	return eq == 1, err
}

// View returns a new profile on the same data (nothing is copied) that shows what opts
// selects: one thread, the samples with some labels, and for an XRay trace names from its binary. opts may be nil (the
// whole profile). p is unchanged; close the view too.
func (p *Profile) View(opts *ViewOptions) (*Profile, error) {
	var v *C.profpack_profile
	err := p.do(func(h *C.profpack_profile) error {
		var vo C.profpack_view_options
		C.profpack_view_options_init(&vo)
		var binary string
		if opts != nil {
			if opts.Thread != nil {
				if *opts.Thread < 0 {
					return newError(StatusInvalidArgument, "View: a negative thread index")
				}
				vo.thread = C.size_t(*opts.Thread)
			}
			binary = opts.Binary
			if err := noNUL(append([]string{binary}, opts.Tags...)...); err != nil {
				return err
			}
			if len(opts.Tags) > 0 {
				arr, free := cStrings(opts.Tags)
				defer free()
				vo.tags = arr
				vo.tag_count = C.size_t(len(opts.Tags))
			}
		}
		cb := cStringOrNil(binary)
		defer C.free(unsafe.Pointer(cb))
		vo.binary = cb
		err := call(func() C.profpack_status { return C.profpack_profile_view(h, &vo, &v) })
		if e, ok := err.(*Error); ok && (e.Status == StatusIO || e.Status == StatusMalformed) {
			e.Path = binary // the binary could not be read
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return wrap(v), nil
}

// Symbolize returns a new profile whose addresses are named from the ELF binaries its
// mappings name (gperftools, DCPI), or whose XRay function ids are named from opts.Binary:
// functions, files, lines and inline frames, kept when written as .ppk. Mappings that could
// not be symbolized are warnings of the result. opts may be nil.
func (p *Profile) Symbolize(opts *SymbolizeOptions) (*Profile, error) {
	var s *C.profpack_profile
	err := p.do(func(h *C.profpack_profile) error {
		var so C.profpack_symbolize_options
		C.profpack_symbolize_options_init(&so)
		if opts != nil {
			if err := noNUL(append([]string{opts.Binary, opts.Kallsyms}, opts.BinaryPath...)...); err != nil {
				return err
			}
			arr, free := cStrings(opts.BinaryPath)
			defer free()
			so.binary_path = arr
			so.binary_path_count = C.size_t(len(opts.BinaryPath))
			cb := cStringOrNil(opts.Binary)
			defer C.free(unsafe.Pointer(cb))
			so.binary = cb
			ck := cStringOrNil(opts.Kallsyms)
			defer C.free(unsafe.Pointer(ck))
			so.kallsyms = ck
			if opts.SymbolTablesOnly {
				so.symbol_tables_only = 1
			}
		}
		return call(func() C.profpack_status { return C.profpack_profile_symbolize(h, &so, &s) })
	})
	if err != nil {
		return nil, err
	}
	return wrap(s), nil
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}
