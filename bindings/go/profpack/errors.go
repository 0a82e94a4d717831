package profpack

/*
#include <profpack/profpack.h>
*/
import "C"

import (
	"errors"
	"runtime"
)

// Status is a status code of the C API.
type Status int

// The status codes.
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

// String is the status's English name, e.g. "malformed input".
func (s Status) String() string { return C.GoString(C.profpack_status_name(C.profpack_status(s))) }

// One sentinel per failure status, for errors.Is; the error itself is an *Error (errors.As)
// with the message, format and position.
var (
	ErrInvalidArgument = errors.New("profpack: invalid argument")
	ErrIO              = errors.New("profpack: i/o error")
	ErrMalformed       = errors.New("profpack: malformed input")
	ErrUnsupported     = errors.New("profpack: unsupported")
	ErrLimit           = errors.New("profpack: limit exceeded")
	ErrNoMemory        = errors.New("profpack: out of memory")
	ErrInternal        = errors.New("profpack: internal error")
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

// Error returns the complete message, including format and position.
func (e *Error) Error() string { return e.Message }

// Is makes errors.Is(err, ErrMalformed) (and the other sentinels) match by status.
func (e *Error) Is(target error) bool { return target == e.Status.sentinel() && target != nil }

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
