package profpack

/*
#include <profpack/profpack.h>
*/
import "C"

import (
	"errors"
	"runtime"
	"strings"
)

// Status is a status code of the C API (profpack_status). Its values are the C constants'.
type Status int

// The status codes.
const (
	StatusOK              Status = 0 // PROFPACK_OK
	StatusInvalidArgument Status = 1 // PROFPACK_ERROR_INVALID_ARGUMENT: a bad option, an unknown format
	StatusIO              Status = 2 // PROFPACK_ERROR_IO: a file could not be opened, read or written
	StatusMalformed       Status = 3 // PROFPACK_ERROR_MALFORMED: not a valid profile of its format
	StatusUnsupported     Status = 4 // PROFPACK_ERROR_UNSUPPORTED: valid, but not something profpack can do
	StatusLimit           Status = 5 // PROFPACK_ERROR_LIMIT: beyond an option's or a documented limit
	StatusNoMemory        Status = 6 // PROFPACK_ERROR_NO_MEMORY
	StatusInternal        Status = 7 // PROFPACK_ERROR_INTERNAL: a bug in profpack
)

// String is the status's English name, e.g. "malformed input".
func (s Status) String() string { return C.GoString(C.profpack_status_name(C.profpack_status(s))) }

// One sentinel per failure status, for errors.Is; the error itself is an *Error (errors.As)
// with the status, the file, the message, the format and the position.
var (
	ErrInvalidArgument = errors.New("profpack: invalid argument")
	ErrIO              = errors.New("profpack: i/o error")
	ErrMalformed       = errors.New("profpack: malformed input")
	ErrUnsupported     = errors.New("profpack: unsupported")
	ErrLimit           = errors.New("profpack: limit exceeded")
	ErrNoMemory        = errors.New("profpack: out of memory")
	ErrInternal        = errors.New("profpack: internal error")
	// ErrClosed: a method of a Profile, Merger or Archive after its Close, a second Close, or
	// a nil Profile given to Merge, Diff or Archive.Add (the error's Status is
	// StatusInvalidArgument, so errors.Is(err, ErrInvalidArgument) holds too).
	ErrClosed = errors.New("profpack: use of a closed Profile, Merger or Archive")
)

// Unknown marks an Offset or Line that is not known (PROFPACK_UNKNOWN_POSITION).
const Unknown uint64 = 1<<64 - 1

// Error is a failure reported by the library, as os.PathError names the file it is about.
type Error struct {
	Status  Status
	Path    string // the file the failure is about, or "" (the input was in memory)
	Message string // the library's message, including format and position
	Format  string // format whose input was at fault, or ""
	Offset  uint64 // byte offset of the defect, or Unknown
	Line    uint64 // 1-based line of the defect, or Unknown
	closed  bool
}

// Error returns the message, led by the file's path where there is one.
func (e *Error) Error() string {
	if e.Path == "" || strings.HasPrefix(e.Message, e.Path+": ") {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Is makes errors.Is(err, ErrMalformed) (and the other sentinels) match by status, and
// errors.Is(err, ErrClosed) match a use after Close.
func (e *Error) Is(target error) bool {
	return target != nil && (target == e.Status.sentinel() || e.closed && target == ErrClosed)
}

// Unwrap returns the sentinel of the error's status.
func (e *Error) Unwrap() error { return e.Status.sentinel() }

func (s Status) sentinel() error {
	switch s {
	case StatusInvalidArgument:
		return ErrInvalidArgument
	case StatusIO:
		return ErrIO
	case StatusMalformed:
		return ErrMalformed
	case StatusUnsupported:
		return ErrUnsupported
	case StatusLimit:
		return ErrLimit
	case StatusNoMemory:
		return ErrNoMemory
	case StatusInternal:
		return ErrInternal
	}
	return nil
}

// newError is an *Error of the binding's own, with no position.
func newError(s Status, msg string) *Error {
	return &Error{Status: s, Message: "profpack: " + msg, Offset: Unknown, Line: Unknown}
}

func closedError(what string) *Error {
	e := newError(StatusInvalidArgument, "use of a closed "+what)
	e.closed = true
	return e
}

// call runs f on a locked OS thread and converts a failure into an *Error: the C library
// keeps the last error per thread, so the goroutine must not move between the two calls.
func call(f func() C.profpack_status) error { return callPath("", f) }

// callPath is call for a failure about the file path.
func callPath(path string, f func() C.profpack_status) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if s := f(); s != C.PROFPACK_OK {
		e := C.profpack_last_error()
		return &Error{Status: Status(e.code), Path: path, Message: C.GoString(e.message),
			Format: C.GoString(e.format), Offset: uint64(e.offset), Line: uint64(e.line)}
	}
	return nil
}
