package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import "unsafe"

// ReadOptions tune reading; nil or the zero value means defaults (profpack_read_options).
type ReadOptions struct {
	Strict     bool   // make recoverable defects (a cut file) errors instead of warnings
	MaxPPKSize uint64 // largest decompressed .ppk accepted; 0 = library default (4 GiB)
	Format     Format // read as this format instead of detecting it
	// DeferIR hints that the profile will be queried or converted to another format, not
	// written as .ppk or in its own format: the reader may build the IR those need only when
	// it is first asked for (PROFPACK_READ_DEFER_IR). Outputs are the same either way.
	DeferIR bool
	// OutputFormat names the format the profile will be written in, if known: the library then
	// decides itself what of the IR to defer (profpack_read_options.output_format).
	OutputFormat Format
	// Symbolize names the functions of a profile that holds only addresses (gperftools, DCPI)
	// from its binaries as it is read, as go tool pprof does (PROFPACK_READ_SYMBOLIZE).
	Symbolize bool
	// SymbolTablesOnly: with Symbolize, names from the binaries' symbol tables only, as perf
	// script names them: no DWARF, so no source lines or inline frames, and no debug
	// information decompressed (PROFPACK_READ_SYMBOL_TABLES_ONLY).
	SymbolTablesOnly bool
	// NoLines: with Symbolize, functions and inline frames but no source file or line looked
	// up, for a profile only written as folded stacks or trace events, whose output is the
	// same (PROFPACK_READ_NO_LINES).
	NoLines bool
	// BinaryPath: with Symbolize, directories to look for binaries in, before those of
	// PROFPACK_BINARY_PATH (profpack_read_options.binary_path).
	BinaryPath []string
}

// check returns an error for a NUL inside paths or the options' strings (see noNUL).
func (o *ReadOptions) check(paths ...string) error {
	if err := noNUL(paths...); err != nil || o == nil {
		return err
	}
	return noNUL(o.BinaryPath...)
}

// c returns the C options and a function that frees what they point to.
func (o *ReadOptions) c() (*C.profpack_read_options, func()) {
	var co C.profpack_read_options
	C.profpack_read_options_init(&co)
	free := func() {}
	if o != nil {
		if o.Symbolize {
			co.flags |= C.PROFPACK_READ_SYMBOLIZE
		}
		if o.SymbolTablesOnly {
			co.flags |= C.PROFPACK_READ_SYMBOL_TABLES_ONLY
		}
		if o.NoLines {
			co.flags |= C.PROFPACK_READ_NO_LINES
		}
		if len(o.BinaryPath) > 0 {
			co.binary_path, free = cStrings(o.BinaryPath)
			co.binary_path_count = C.size_t(len(o.BinaryPath))
		}
		if o.Strict {
			co.flags |= C.PROFPACK_READ_STRICT
		}
		if o.DeferIR {
			co.flags |= C.PROFPACK_READ_DEFER_IR
		}
		if o.MaxPPKSize != 0 {
			co.max_ppk_size = C.uint64_t(o.MaxPPKSize)
		}
		co.format = C.profpack_format(o.Format)
		co.output_format = C.profpack_format(o.OutputFormat)
	}
	return &co, free
}

// WriteParam is a keyed write parameter (profpack_write_param): each applies to one output
// format and is ignored by the others.
type WriteParam int

// The write parameters; WriteParamBounds gives each integer one's range and default. Their
// values are the C constants'.
const (
	WritePPKLevel           WriteParam = 1  // PROFPACK_WRITE_PPK_LEVEL: .ppk zstd level, 1-22 (default 3)
	WriteXRayMode           WriteParam = 2  // PROFPACK_WRITE_XRAY_MODE: -1 as read, 0 basic, 1 FDR
	WriteXRayVersion        WriteParam = 3  // PROFPACK_WRITE_XRAY_VERSION: 0 as read, or the version
	WriteGperftoolsSlotSize WriteParam = 4  // PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES: 0 as read, 4 or 8
	WriteGperftoolsOrder    WriteParam = 5  // PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER: 0 as read, 1 little, 2 big
	WriteFoldedProcess      WriteParam = 6  // PROFPACK_WRITE_FOLDED_PROCESS: 0 comm, 1 comm-PID, 2 comm-PID/TID, 3 none
	WriteDCPIImage          WriteParam = 64 // PROFPACK_WRITE_DCPI_IMAGE: a string, the image's path or index
)

// WriteParamBounds returns the lowest and highest value and the default of an integer
// parameter.
func WriteParamBounds(p WriteParam) (lowest, highest, def int64, err error) {
	var lo, hi, d C.int64_t
	err = call(func() C.profpack_status {
		return C.profpack_write_param_bounds(C.profpack_write_param(p), &lo, &hi, &d)
	})
	return int64(lo), int64(hi), int64(d), err
}

// WriteOptions hold write parameters by key; nil means defaults. Values are checked against
// their bounds when the options are used.
type WriteOptions struct {
	ints    map[WriteParam]int64
	strings map[WriteParam]string
}

// Set sets integer parameter p and returns o, for chaining.
func (o *WriteOptions) Set(p WriteParam, v int64) *WriteOptions {
	if o.ints == nil {
		o.ints = map[WriteParam]int64{}
	}
	o.ints[p] = v
	return o
}

// SetString sets string parameter p and returns o, for chaining.
func (o *WriteOptions) SetString(p WriteParam, v string) *WriteOptions {
	if o.strings == nil {
		o.strings = map[WriteParam]string{}
	}
	o.strings[p] = v
	return o
}

// c fills C options; free releases the strings once the write call has returned.
func (o *WriteOptions) c() (co *C.profpack_write_options, free func(), err error) {
	co = new(C.profpack_write_options)
	C.profpack_write_options_init(co)
	var held []*C.char
	free = func() {
		for _, s := range held {
			C.free(unsafe.Pointer(s))
		}
	}
	if o == nil {
		return co, free, nil
	}
	for p, v := range o.ints {
		p, v := p, v
		if err = call(func() C.profpack_status {
			return C.profpack_write_options_set(co, C.profpack_write_param(p), C.int64_t(v))
		}); err != nil {
			free()
			return nil, func() {}, err
		}
	}
	for p, v := range o.strings {
		if err = noNUL(v); err != nil {
			free()
			return nil, func() {}, err
		}
		s := C.CString(v)
		held = append(held, s)
		p := p
		if err = call(func() C.profpack_status {
			return C.profpack_write_options_set_string(co, C.profpack_write_param(p), s)
		}); err != nil {
			free()
			return nil, func() {}, err
		}
	}
	return co, free, nil
}

// ViewOptions say what a view shows (profpack_view_options); nil means the whole profile.
type ViewOptions struct {
	// Thread restricts every figure to one thread, an index of Threads; nil: every thread.
	Thread *int
	// Binary names an XRay trace's function ids from the instrumented executable; "": none.
	Binary string
	// Tags keep only the samples whose labels match every selector "KEY=REGEX": a label KEY
	// whose value REGEX matches anywhere, as pprof's -tagfocus (profpack_view_options.tags).
	// ErrUnsupported for a profile whose samples carry no labels.
	Tags []string
}

// DiffOptions tune Diff (profpack_diff_options); nil means defaults.
type DiffOptions struct {
	// Rewrites applied to both profiles' file and function names before they are matched, as
	// cg_diff's --mod-filename/--mod-funcname: each "s/REGEX/REPLACEMENT/" (optional g).
	ModFilename, ModFuncname []string
	// Names of the two profiles (e.g. their files), for messages.
	BaseName, CurrentName string
	// Event renames applied to both before their events are matched: each "FROM=TO".
	EventRenames []string
}

// SymbolizeOptions tune Symbolize (profpack_symbolize_options); nil means defaults.
type SymbolizeOptions struct {
	// Directories searched for a mapping's binary by its base name, after the path the
	// mapping names and before those of PROFPACK_BINARY_PATH.
	BinaryPath []string
	// For a profile whose functions are ids (XRay): the instrumented executable.
	Binary string
	// Kallsyms is a copy of /proc/kallsyms of the kernel the profile was recorded on, to name
	// its kernel frames; "": /proc/kallsyms where the running kernel is the recorded one.
	Kallsyms string
	// SymbolTablesOnly names from the binaries' symbol tables only, without DWARF: no source
	// lines or inline frames (profpack_symbolize_options.symbol_tables_only).
	SymbolTablesOnly bool
}
