// Package profpack reads, stores (.ppk) and writes performance profiles: Callgrind,
// Cachegrind, gperftools CPU profiles, LLVM XRay traces and DCPI profiles. It converts any of
// them to the formats that can hold it (pprof, Callgrind, folded stacks, Chrome trace events),
// merges and diffs them, names addresses from binaries, and answers an editor's questions (top
// functions, per-line costs, callers and callees).
//
// It wraps the C library libprofpack through cgo and finds it with pkg-config: after
// `meson install`, set PKG_CONFIG_PATH to the directory of profpack.pc if that is not a
// standard one (or to a build directory's meson-uninstalled directory to use the build tree),
// e.g.
//
//	PKG_CONFIG_PATH=/usr/local/lib/x86_64-linux-gnu/pkgconfig go build
//
// Every exported call of the C API has one Go counterpart (docs/api.md lists them): the C
// objects profpack_profile and profpack_merger are Profile and Merger (a file each here, with
// query.go and top.go for the queries), their options structs the *Options types, the status
// codes Status with one sentinel error each, and each C constant a typed constant declared
// with its value. A Profile never changes after it is made, so every method is safe to call
// from several goroutines at once. Close it when done (it is an io.Closer; a finalizer frees a
// forgotten one); a call after Close returns an error matching ErrClosed. Costs are int64:
// negative where a profile is a difference.
package profpack

/*
#cgo pkg-config: profpack
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import (
	"strconv"
	"strings"
	"unsafe"
)

// Version is the version of the loaded C library, e.g. "0.1.0".
func Version() string { return C.GoString(C.profpack_version_string()) }

// VersionNumber is the version of the loaded C library as MAJOR*10000 + MINOR*100 + PATCH.
func VersionNumber() int { return int(C.profpack_version_number()) }

// noNUL returns an error (ErrInvalidArgument) if a string for the library holds a NUL byte,
// which would end the C string there: "a.out\x00.x" would be read as "a.out". Every string
// argument is checked with it before it becomes a C string.
func noNUL(ss ...string) error {
	for _, s := range ss {
		if strings.IndexByte(s, 0) >= 0 {
			return newError(StatusInvalidArgument, strconv.Quote(s)+" contains a NUL byte")
		}
	}
	return nil
}

// cStrings copies ss into a C array of C strings; free releases it.
func cStrings(ss []string) (arr **C.char, free func()) {
	if len(ss) == 0 {
		return nil, func() {}
	}
	p := C.malloc(C.size_t(len(ss)) * C.size_t(unsafe.Sizeof((*C.char)(nil))))
	a := unsafe.Slice((**C.char)(p), len(ss))
	for i, s := range ss {
		a[i] = C.CString(s)
	}
	return (**C.char)(p), func() {
		for _, s := range a {
			C.free(unsafe.Pointer(s))
		}
		C.free(p)
	}
}

// cStringOrNil is C.CString(s), or nil for "" (free with C.free, which ignores nil).
func cStringOrNil(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}
