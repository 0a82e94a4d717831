package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import (
	"strings"
	"unsafe"
)

// Format is a profile format (profpack_format). Its values are the C constants'.
type Format int

// The formats. Every one is read; FormatCpuprofile, FormatPerf and FormatPerfScript are never
// written.
const (
	FormatUnknown    Format = 0 // PROFPACK_FORMAT_UNKNOWN
	FormatPPK        Format = 1 // PROFPACK_FORMAT_PPK: profpack's own container
	FormatCallgrind  Format = 2 // PROFPACK_FORMAT_CALLGRIND
	FormatCachegrind Format = 3 // PROFPACK_FORMAT_CACHEGRIND
	FormatGperftools Format = 4 // PROFPACK_FORMAT_GPERFTOOLS: gperftools CPU profile
	FormatXRay       Format = 5 // PROFPACK_FORMAT_XRAY: LLVM XRay trace, FDR or basic mode
	FormatDCPI       Format = 6 // PROFPACK_FORMAT_DCPI
	FormatFolded     Format = 7 // PROFPACK_FORMAT_FOLDED: collapsed stacks
	FormatTraceEvent Format = 8 // PROFPACK_FORMAT_TRACE_EVENT: Chrome Trace Event JSON
	FormatPprof      Format = 9 // PROFPACK_FORMAT_PPROF: gzipped profile.proto
	// FormatCpuprofile is read only: a V8 CPU profile (node --cpu-prof, DevTools).
	FormatCpuprofile Format = 10 // PROFPACK_FORMAT_CPUPROFILE
	// FormatPerf is read only: Linux perf.data (perf record), file or pipe mode.
	FormatPerf Format = 11 // PROFPACK_FORMAT_PERF
	// FormatPerfScript is read only: `perf script` text.
	FormatPerfScript Format = 12 // PROFPACK_FORMAT_PERF_SCRIPT
)

// String returns the format's name as the CLI spells it ("ppk", "callgrind", ...).
func (f Format) String() string { return C.GoString(C.profpack_format_name(C.profpack_format(f))) }

// ParseFormat returns the format named s, or FormatUnknown.
func ParseFormat(s string) Format {
	if noNUL(s) != nil {
		return FormatUnknown
	}
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return Format(C.profpack_format_from_name(cs))
}

// FormatForPath returns the format a file's name says it holds (".pb.gz" pprof, ".ppk",
// "callgrind.out.123", ...), or FormatUnknown: for choosing an output format. Reading never
// uses it.
func FormatForPath(path string) Format {
	if noNUL(path) != nil {
		return FormatUnknown
	}
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	return Format(C.profpack_format_for_path(cs))
}

// DetectFormat returns the format of a profile from its first bytes, or FormatUnknown.
func DetectFormat(data []byte) Format {
	if len(data) == 0 {
		return FormatUnknown
	}
	return Format(C.profpack_detect_format(unsafe.Pointer(&data[0]), C.size_t(len(data))))
}

// FormatInfo describes a format (profpack_format_info).
type FormatInfo struct {
	Format      Format
	Name        string // as String spells it
	Description string // a short English description
	Readable    bool   // profiles are read from it
	Writable    bool   // profiles are written in it
	// Written, it holds source files or lines (a profile read with NoLines writes the same
	// bytes in the formats without it: folded stacks, trace events).
	WritesLines bool
	// The endings of file names FormatForPath takes for it (".pb.gz") and the names its
	// profiler gives files ("callgrind.out.*").
	Endings, FileNames []string
}

// Info describes f (profpack_format_describe); ErrInvalidArgument for a value that is no
// format.
func (f Format) Info() (FormatInfo, error) {
	var ci C.profpack_format_info
	C.profpack_format_info_init(&ci)
	if err := call(func() C.profpack_status { return C.profpack_format_describe(C.profpack_format(f), &ci) }); err != nil {
		return FormatInfo{}, err
	}
	return FormatInfo{
		Format:      f,
		Name:        C.GoString(ci.name),
		Description: C.GoString(ci.description),
		Readable:    ci.flags&C.PROFPACK_FORMAT_READABLE != 0,
		Writable:    ci.flags&C.PROFPACK_FORMAT_WRITABLE != 0,
		WritesLines: ci.flags&C.PROFPACK_FORMAT_WRITES_LINES != 0,
		Endings:     strings.Fields(C.GoString(ci.endings)),
		FileNames:   strings.Fields(C.GoString(ci.file_names)),
	}, nil
}

// Formats describes every format the library knows, in the order of their values.
func Formats() []FormatInfo {
	var out []FormatInfo
	for f := FormatPPK; ; f++ {
		info, err := f.Info()
		if err != nil {
			return out
		}
		out = append(out, info)
	}
}
