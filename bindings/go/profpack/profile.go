package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import (
	"io"
	"runtime"
	"unsafe"
)

// Profile is a profile in memory (profpack_profile). It never changes after it is made, so
// its methods may run from several goroutines at once. Close it when done.
type Profile struct {
	p *C.profpack_profile
}

func wrap(p *C.profpack_profile) *Profile {
	pr := &Profile{p}
	runtime.SetFinalizer(pr, (*Profile).Close)
	return pr
}

// ReadFile reads a profile of any supported format, or a .ppk; the format comes from the
// content. opts may be nil.
func ReadFile(path string, opts *ReadOptions) (*Profile, error) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	var p *C.profpack_profile
	if err := call(func() C.profpack_status { return C.profpack_read_file(cs, opts.c(), &p) }); err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// ReadFiles reads files that are parts of one profile as that profile: valgrind's
// --separate-threads=yes writes a Callgrind file per thread (callgrind.out.PID-01, -02, ...),
// each a thread of the result. One path is ReadFile. opts may be nil.
func ReadFiles(paths []string, opts *ReadOptions) (*Profile, error) {
	if len(paths) == 0 {
		return nil, &Error{Status: StatusInvalidArgument, Message: "ReadFiles: no paths", Offset: Unknown, Line: Unknown}
	}
	cs := C.malloc(C.size_t(len(paths)) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(cs)
	list := unsafe.Slice((**C.char)(cs), len(paths))
	for i, path := range paths {
		list[i] = C.CString(path)
		defer C.free(unsafe.Pointer(list[i]))
	}
	var p *C.profpack_profile
	if err := call(func() C.profpack_status {
		return C.profpack_read_files((**C.char)(cs), C.size_t(len(paths)), opts.c(), &p)
	}); err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// ReadBytes reads a profile from memory. opts may be nil.
func ReadBytes(data []byte, opts *ReadOptions) (*Profile, error) {
	var p *C.profpack_profile
	var ptr unsafe.Pointer
	if len(data) > 0 {
		ptr = C.CBytes(data)
		defer C.free(ptr)
	}
	if err := call(func() C.profpack_status {
		return C.profpack_read_memory(ptr, C.size_t(len(data)), opts.c(), &p)
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

// Close frees the profile. It is safe to call more than once; the profile must not be used
// afterwards.
func (p *Profile) Close() {
	if p.p != nil {
		C.profpack_profile_free(p.p)
		p.p = nil
		runtime.SetFinalizer(p, nil)
	}
}

func (p *Profile) handle() *C.profpack_profile {
	if p == nil || p.p == nil {
		panic("profpack: use of a closed or nil Profile")
	}
	return p.p
}

// WriteFile writes the profile in format f to path, atomically. opts may be nil.
func (p *Profile) WriteFile(path string, f Format, opts *WriteOptions) error {
	co, free, err := opts.c()
	if err != nil {
		return err
	}
	defer free()
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	defer runtime.KeepAlive(p)
	return call(func() C.profpack_status {
		return C.profpack_write_file(p.handle(), C.profpack_format(f), cs, co)
	})
}

// Bytes returns the profile written in format f, e.g. FormatPprof for go tool pprof. opts may
// be nil.
func (p *Profile) Bytes(f Format, opts *WriteOptions) ([]byte, error) {
	co, free, err := opts.c()
	if err != nil {
		return nil, err
	}
	defer free()
	var buf unsafe.Pointer
	var size C.size_t
	defer runtime.KeepAlive(p)
	if err := call(func() C.profpack_status {
		return C.profpack_write_memory(p.handle(), C.profpack_format(f), co, &buf, &size)
	}); err != nil {
		return nil, err
	}
	defer C.profpack_free(buf)
	return C.GoBytes(buf, C.int(size)), nil
}

// Format is the format the profile was originally read from (a .ppk remembers it).
func (p *Profile) Format() Format {
	defer runtime.KeepAlive(p)
	return Format(C.profpack_profile_format(p.handle()))
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
	SignedCosts   bool   // a difference of profiles: costs are int64 in disguise
	Capabilities  Capability
}

// Capability is what a profile holds (Info.Capabilities): a query of what it lacks answers
// with nothing.
type Capability uint32

// The bits of Capability.
const (
	HasCallArcs   Capability = 1 << 0 // caller -> callee arcs with inclusive costs
	HasCallCounts Capability = 1 << 1 // how often each function and arc was called
	HasLines      Capability = 1 << 2 // self cost per source line
	HasAddresses  Capability = 1 << 3 // self cost per instruction address
	HasStacks     Capability = 1 << 4 // whole call stacks
	HasTimeline   Capability = 1 << 5 // when each call began and ended
	HasThreads    Capability = 1 << 6 // figures per thread (View)
	HasNames      Capability = 1 << 7 // functions have names, not only addresses or ids
)

// Has reports whether every bit of c2 is in c.
func (c Capability) Has(c2 Capability) bool { return c&c2 == c2 }

// Info returns whole-profile figures.
func (p *Profile) Info() (Info, error) {
	defer runtime.KeepAlive(p)
	var ci C.profpack_info
	C.profpack_info_init(&ci)
	if err := call(func() C.profpack_status { return C.profpack_profile_info(p.handle(), &ci) }); err != nil {
		return Info{}, err
	}
	return Info{Format(ci.format), C.GoString(ci.format_version), uint64(ci.parts),
		uint64(ci.events), uint64(ci.records), uint64(ci.functions), uint64(ci.files),
		uint64(ci.objects), uint64(ci.strings), uint64(ci.ir_bytes), ci.signed_costs != 0,
		Capability(ci.capabilities)}, nil
}

// Warnings are what the reader said about the input (e.g. a truncated trace that was still
// loaded), oldest first.
func (p *Profile) Warnings() ([]string, error) {
	defer runtime.KeepAlive(p)
	var n C.size_t
	if err := call(func() C.profpack_status { return C.profpack_profile_warnings(p.handle(), nil, 0, &n) }); err != nil || n == 0 {
		return nil, err
	}
	ws := make([]*C.char, n)
	if err := call(func() C.profpack_status { return C.profpack_profile_warnings(p.p, &ws[0], n, &n) }); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ws))
	for _, w := range ws[:min(int(n), len(ws))] {
		out = append(out, C.GoString(w))
	}
	return out, nil
}

// Event is a cost event with its total over the whole profile (or the view's thread).
type Event struct {
	Name, LongName string
	Total          uint64
}

// Events lists the cost events in column order.
func (p *Profile) Events() ([]Event, error) {
	defer runtime.KeepAlive(p)
	var n C.size_t
	if err := call(func() C.profpack_status { return C.profpack_profile_events(p.handle(), nil, 0, &n) }); err != nil || n == 0 {
		return nil, err
	}
	buf := make([]C.profpack_event, n)
	if err := call(func() C.profpack_status { return C.profpack_profile_events(p.p, &buf[0], n, &n) }); err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(buf))
	for _, e := range buf[:min(int(n), len(buf))] {
		out = append(out, Event{C.GoString(e.name), C.GoString(e.long_name), uint64(e.total)})
	}
	return out, nil
}

// EventIndex returns the index of the event with short name name (e.g. "Ir").
func (p *Profile) EventIndex(name string) (int, error) {
	defer runtime.KeepAlive(p)
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var i C.size_t
	err := call(func() C.profpack_status { return C.profpack_profile_event_index(p.handle(), cs, &i) })
	return int(i), err
}

// Equal reports whether two profiles hold the same IR (profpack_profile_equal; the CLI's
// equal).
func (p *Profile) Equal(q *Profile) (bool, error) {
	defer runtime.KeepAlive(p)
	defer runtime.KeepAlive(q)
	var eq C.int
	err := call(func() C.profpack_status { return C.profpack_profile_equal(p.handle(), q.handle(), &eq) })
	return eq == 1, err
}

// View returns a new profile on the same data (nothing is copied) that shows one thread
// (thread: an index of Threads, or AllThreads) and, for an XRay trace, names function ids from
// binary (the instrumented executable; "" for none). p is unchanged; close the view too.
func (p *Profile) View(thread int, binary string) (*Profile, error) {
	defer runtime.KeepAlive(p)
	var vo C.profpack_view_options
	C.profpack_view_options_init(&vo)
	if thread != AllThreads {
		vo.thread = C.size_t(thread)
	}
	cb := cStringOrNil(binary)
	defer C.free(unsafe.Pointer(cb))
	vo.binary = cb
	var v *C.profpack_profile
	if err := call(func() C.profpack_status { return C.profpack_profile_view(p.handle(), &vo, &v) }); err != nil {
		return nil, err
	}
	return wrap(v), nil
}

// Symbolize returns a new profile whose addresses are named from the ELF binaries its
// mappings name (gperftools, DCPI), or whose XRay function ids are named from opts.Binary:
// functions, files, lines and inline frames, kept when written as .ppk. Mappings that could
// not be symbolized are warnings of the result. opts may be nil.
func (p *Profile) Symbolize(opts *SymbolizeOptions) (*Profile, error) {
	defer runtime.KeepAlive(p)
	var so C.profpack_symbolize_options
	C.profpack_symbolize_options_init(&so)
	if opts != nil {
		arr, free := cStrings(opts.BinaryPath)
		defer free()
		so.binary_path = arr
		so.binary_path_count = C.size_t(len(opts.BinaryPath))
		cb := cStringOrNil(opts.Binary)
		defer C.free(unsafe.Pointer(cb))
		so.binary = cb
	}
	var s *C.profpack_profile
	if err := call(func() C.profpack_status { return C.profpack_profile_symbolize(p.handle(), &so, &s) }); err != nil {
		return nil, err
	}
	return wrap(s), nil
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
