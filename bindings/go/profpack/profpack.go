// Package profpack reads, stores (.ppk) and writes performance profiles: Callgrind,
// Cachegrind, gperftools CPU profiles, LLVM XRay traces and DCPI profiles. It wraps the C
// library libprofpack through cgo and finds it with pkg-config: after `meson install`, set
// PKG_CONFIG_PATH to the directory of profpack.pc if that is not a standard one (or to a
// build directory's meson-uninstalled directory to use the build tree), e.g.
//
//	PKG_CONFIG_PATH=/usr/local/lib/x86_64-linux-gnu/pkgconfig go build
package profpack

/*
#cgo pkg-config: profpack
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Format is a profile format.
type Format int

const (
	FormatUnknown    Format = C.PROFPACK_FORMAT_UNKNOWN
	FormatPPK        Format = C.PROFPACK_FORMAT_PPK
	FormatCallgrind  Format = C.PROFPACK_FORMAT_CALLGRIND
	FormatCachegrind Format = C.PROFPACK_FORMAT_CACHEGRIND
	FormatGperftools Format = C.PROFPACK_FORMAT_GPERFTOOLS
	FormatXRay       Format = C.PROFPACK_FORMAT_XRAY
	FormatDCPI       Format = C.PROFPACK_FORMAT_DCPI
	// Written only: collapsed stacks, Chrome Trace Event JSON, pprof's profile.proto.
	FormatFolded     Format = C.PROFPACK_FORMAT_FOLDED
	FormatTraceEvent Format = C.PROFPACK_FORMAT_TRACE_EVENT
	FormatPprof      Format = C.PROFPACK_FORMAT_PPROF
)

// String returns the format's name as the CLI spells it ("ppk", "callgrind", ...).
func (f Format) String() string { return C.GoString(C.profpack_format_name(C.profpack_format(f))) }

// ParseFormat returns the format named s, or FormatUnknown.
func ParseFormat(s string) Format {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return Format(C.profpack_format_from_name(cs))
}

// DetectFormat returns the format of a profile from its first bytes.
func DetectFormat(data []byte) Format {
	if len(data) == 0 {
		return FormatUnknown
	}
	return Format(C.profpack_detect_format(unsafe.Pointer(&data[0]), C.size_t(len(data))))
}

// Version is the version of the loaded C library, e.g. "0.1.0".
func Version() string { return C.GoString(C.profpack_version_string()) }

// Status is a profpack status code.
type Status int

const (
	StatusOK              Status = C.PROFPACK_OK
	StatusInvalidArgument Status = C.PROFPACK_ERROR_INVALID_ARGUMENT
	StatusIO              Status = C.PROFPACK_ERROR_IO
	StatusMalformed       Status = C.PROFPACK_ERROR_MALFORMED
	StatusUnsupported     Status = C.PROFPACK_ERROR_UNSUPPORTED
	StatusLimit           Status = C.PROFPACK_ERROR_LIMIT
	StatusNoMemory        Status = C.PROFPACK_ERROR_NO_MEMORY
	StatusInternal        Status = C.PROFPACK_ERROR_INTERNAL
)

// Unknown marks an Offset or Line that is not known.
const Unknown = ^uint64(0)

// Error is a failure reported by the library.
type Error struct {
	Status  Status
	Message string // complete message, including format and position
	Format  string // format whose input was at fault, or ""
	Offset  uint64 // byte offset of the defect, or Unknown
	Line    uint64 // 1-based line of the defect, or Unknown
}

func (e *Error) Error() string { return e.Message }

// call runs f on a locked OS thread and converts a failure into an *Error: the C library
// keeps the last error per thread, so the goroutine must not move between the two calls.
func call(f func() C.profpack_status) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if s := f(); s != C.PROFPACK_OK {
		e := C.profpack_last_error()
		return &Error{Status(e.code), C.GoString(e.message), C.GoString(e.format),
			uint64(e.offset), uint64(e.line)}
	}
	return nil
}

// ReadOptions tune reading; the zero value means defaults.
type ReadOptions struct {
	Strict     bool   // make recoverable defects errors
	MaxPPKSize uint64 // largest decompressed .ppk accepted; 0 = library default (4 GiB)
	Format     Format // read as this format instead of detecting it
}

func (o *ReadOptions) c() *C.profpack_read_options {
	var co C.profpack_read_options
	C.profpack_read_options_init(&co)
	if o != nil {
		if o.Strict {
			co.flags |= C.PROFPACK_READ_STRICT
		}
		if o.MaxPPKSize != 0 {
			co.max_ppk_size = C.uint64_t(o.MaxPPKSize)
		}
		co.format = C.profpack_format(o.Format)
	}
	return &co
}

// Profile is a profile in memory. Close it when done (a finalizer frees it otherwise).
type Profile struct {
	p *C.profpack_profile
}

func wrap(p *C.profpack_profile) *Profile {
	pr := &Profile{p}
	runtime.SetFinalizer(pr, (*Profile).Close)
	return pr
}

// ReadFile reads a profile of any supported format, or a .ppk; the format comes from the
// content.
func ReadFile(path string, opts *ReadOptions) (*Profile, error) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	var p *C.profpack_profile
	if err := call(func() C.profpack_status { return C.profpack_read_file(cs, opts.c(), &p) }); err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// Read reads a profile from memory.
func Read(data []byte, opts *ReadOptions) (*Profile, error) {
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

// Close frees the profile. It is safe to call more than once.
func (p *Profile) Close() {
	if p.p != nil {
		C.profpack_profile_free(p.p)
		p.p = nil
	}
}

func (p *Profile) handle() *C.profpack_profile {
	if p.p == nil {
		panic("profpack: use of a closed Profile")
	}
	return p.p
}

func writeOptions(level int) *C.profpack_write_options {
	var wo C.profpack_write_options
	C.profpack_write_options_init(&wo)
	if level != 0 {
		// An out-of-range level leaves the default; the write then uses that.
		C.profpack_write_options_set(&wo, C.PROFPACK_WRITE_PPK_LEVEL, C.int64_t(level))
	}
	return &wo
}

// WriteFile writes the profile in format f to path, atomically. level is the zstd level of
// .ppk output (0 = default).
func (p *Profile) WriteFile(path string, f Format, level int) error {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	defer runtime.KeepAlive(p)
	return call(func() C.profpack_status {
		return C.profpack_write_file(p.handle(), C.profpack_format(f), cs, writeOptions(level))
	})
}

// Bytes returns the profile written in format f.
func (p *Profile) Bytes(f Format, level int) ([]byte, error) {
	var buf unsafe.Pointer
	var size C.size_t
	defer runtime.KeepAlive(p)
	if err := call(func() C.profpack_status {
		return C.profpack_write_memory(p.handle(), C.profpack_format(f), writeOptions(level), &buf, &size)
	}); err != nil {
		return nil, err
	}
	defer C.profpack_free(buf)
	return C.GoBytes(buf, C.int(size)), nil
}

// Format is the format the profile was originally read from.
func (p *Profile) Format() Format {
	defer runtime.KeepAlive(p)
	return Format(C.profpack_profile_format(p.handle()))
}

// Warnings raised while reading (e.g. a truncated trace that was still loaded).
func (p *Profile) Warnings() []string {
	defer runtime.KeepAlive(p)
	var n C.size_t
	if C.profpack_profile_warnings(p.handle(), nil, 0, &n) != C.PROFPACK_OK || n == 0 {
		return nil
	}
	ws := make([]*C.char, n)
	if C.profpack_profile_warnings(p.p, &ws[0], n, &n) != C.PROFPACK_OK {
		return nil
	}
	out := make([]string, 0, len(ws))
	for _, w := range ws[:min(int(n), len(ws))] {
		out = append(out, C.GoString(w))
	}
	return out
}

// Event is a cost event with its total over the whole profile.
type Event struct {
	Name, LongName string
	Total          uint64
}

// Events lists the cost events in column order.
func (p *Profile) Events() ([]Event, error) {
	defer runtime.KeepAlive(p)
	var n C.size_t
	if err := call(func() C.profpack_status { return C.profpack_profile_events(p.handle(), nil, 0, &n) }); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	buf := make([]C.profpack_event, n)
	if err := call(func() C.profpack_status {
		return C.profpack_profile_events(p.handle(), &buf[0], n, &n)
	}); err != nil {
		return nil, err
	}
	out := make([]Event, len(buf))
	for i, e := range buf {
		out[i] = Event{C.GoString(e.name), C.GoString(e.long_name), uint64(e.total)}
	}
	return out, nil
}

// EventIndex returns the index of the event with short name name.
func (p *Profile) EventIndex(name string) (int, error) {
	defer runtime.KeepAlive(p)
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var i C.size_t
	err := call(func() C.profpack_status { return C.profpack_profile_event_index(p.handle(), cs, &i) })
	return int(i), err
}

// Function is one function with its costs for the event it was queried for.
type Function struct {
	ID                 int
	Name, File, Object string
	Self, Inclusive    uint64
}

func (p *Profile) function(id int, event int) (Function, error) {
	var f C.profpack_function
	var self, incl C.uint64_t
	if err := call(func() C.profpack_status { return C.profpack_profile_function(p.handle(), C.size_t(id), &f) }); err != nil {
		return Function{}, err
	}
	if err := call(func() C.profpack_status {
		return C.profpack_profile_function_cost(p.p, C.size_t(id), C.size_t(event), &self, &incl)
	}); err != nil {
		return Function{}, err
	}
	return Function{id, C.GoString(f.name), C.GoString(f.file), C.GoString(f.object),
		uint64(self), uint64(incl)}, nil
}

// Top returns the n most costly functions for event, by self or inclusive cost.
func (p *Profile) Top(event, n int, inclusive bool) ([]Function, error) {
	defer runtime.KeepAlive(p)
	if n <= 0 {
		return nil, fmt.Errorf("profpack: Top needs n > 0")
	}
	var flags C.uint32_t
	if inclusive {
		flags = C.PROFPACK_TOP_INCLUSIVE
	}
	ids := make([]C.size_t, n)
	var count C.size_t
	if err := call(func() C.profpack_status {
		return C.profpack_profile_top_functions(p.handle(), C.size_t(event), flags, &ids[0], C.size_t(n), &count)
	}); err != nil {
		return nil, err
	}
	// Every function is ranked; the first n were written.
	count = C.size_t(min(int(count), n))
	out := make([]Function, 0, count)
	for _, id := range ids[:count] {
		f, err := p.function(int(id), event)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// LineCost is the self cost of one source line.
type LineCost struct {
	Line, Cost uint64
}

// LineCosts returns the per-line self cost of event in one source file, ascending by line.
func (p *Profile) LineCosts(file string, event int) ([]LineCost, error) {
	defer runtime.KeepAlive(p)
	cs := C.CString(file)
	defer C.free(unsafe.Pointer(cs))
	var n C.size_t
	if err := call(func() C.profpack_status {
		return C.profpack_profile_line_costs(p.handle(), cs, C.size_t(event), nil, 0, &n)
	}); err != nil || n == 0 {
		return nil, err
	}
	buf := make([]C.profpack_line_cost, n)
	if err := call(func() C.profpack_status {
		return C.profpack_profile_line_costs(p.p, cs, C.size_t(event), &buf[0], n, &n)
	}); err != nil {
		return nil, err
	}
	out := make([]LineCost, len(buf))
	for i, l := range buf {
		out[i] = LineCost{uint64(l.line), uint64(l.cost)}
	}
	return out, nil
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

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
