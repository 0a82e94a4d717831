package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import "unsafe"

// Function is a function of a profile; its ID indexes it in that profile (or view).
type Function struct {
	ID                 int
	Name, File, Object string
}

// Functions lists every function in ID order.
func (p *Profile) Functions() ([]Function, error) {
	var out []Function
	err := p.do(func(h *C.profpack_profile) error {
		var n C.size_t
		if err := call(func() C.profpack_status { return C.profpack_profile_functions(h, nil, 0, &n) }); err != nil || n == 0 {
			return err
		}
		buf := make([]C.profpack_function, n)
		if err := call(func() C.profpack_status { return C.profpack_profile_functions(h, &buf[0], n, &n) }); err != nil {
			return err
		}
		for i, f := range buf[:minInt(int(n), len(buf))] {
			out = append(out, Function{i, C.GoString(f.name), C.GoString(f.file), C.GoString(f.object)})
		}
		return nil
	})
	return out, err
}

// Function describes function id.
func (p *Profile) Function(id int) (Function, error) {
	var f C.profpack_function
	err := p.do(func(h *C.profpack_profile) error {
		return call(func() C.profpack_status { return C.profpack_profile_function(h, C.size_t(id), &f) })
	})
	if err != nil {
		return Function{}, err
	}
	return Function{id, C.GoString(f.name), C.GoString(f.file), C.GoString(f.object)}, nil
}

// FindFunctions returns the functions pattern names: those of that exact name; else, for
// FILE:FUNCTION, those named FUNCTION in that file; else those whose name the regular
// expression pattern matches (as pprof's -focus). None found is no error.
func (p *Profile) FindFunctions(pattern string) ([]Function, error) {
	return p.find(pattern, 0, 0)
}

// SimilarFunctions returns up to n functions whose names are nearest name (fewest edits, names
// containing it first): "did you mean" after FindFunctions found none.
func (p *Profile) SimilarFunctions(name string, n int) ([]Function, error) {
	if n <= 0 {
		return nil, p.do(func(*C.profpack_profile) error { return nil })
	}
	return p.find(name, C.PROFPACK_FIND_SIMILAR, n)
}

func (p *Profile) find(pattern string, flags C.uint32_t, capacity int) ([]Function, error) {
	var ids []C.size_t
	if err := noNUL(pattern); err != nil {
		return nil, err
	}
	err := p.do(func(h *C.profpack_profile) error {
		cs := C.CString(pattern)
		defer C.free(unsafe.Pointer(cs))
		var n C.size_t
		if capacity == 0 {
			if err := call(func() C.profpack_status {
				return C.profpack_profile_find_functions(h, cs, flags, nil, 0, &n)
			}); err != nil || n == 0 {
				return err
			}
			capacity = int(n)
		}
		ids = make([]C.size_t, capacity)
		if err := call(func() C.profpack_status {
			return C.profpack_profile_find_functions(h, cs, flags, &ids[0], C.size_t(capacity), &n)
		}); err != nil {
			return err
		}
		ids = ids[:minInt(int(n), capacity)]
		return nil
	})
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	out := make([]Function, 0, len(ids))
	for _, id := range ids {
		f, err := p.Function(int(id))
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// FunctionLine is the line at which function id starts in its file, where the profile knows
// it (a symbolized XRay trace); 0 otherwise.
func (p *Profile) FunctionLine(id int) (uint64, error) {
	var line C.uint64_t
	err := p.do(func(h *C.profpack_profile) error {
		return call(func() C.profpack_status { return C.profpack_profile_function_line(h, C.size_t(id), &line) })
	})
	return uint64(line), err
}

// FunctionCost is the self and inclusive cost of function id for event (negative where a
// difference's are).
func (p *Profile) FunctionCost(id, event int) (self, inclusive int64, err error) {
	err = p.do(func(h *C.profpack_profile) error {
		var s, i C.uint64_t
		if err := call(func() C.profpack_status {
			return C.profpack_profile_function_cost(h, C.size_t(id), C.size_t(event), &s, &i)
		}); err != nil {
			return err
		}
		signed := p.isSigned(h)
		self, inclusive = toInt64(s, signed), toInt64(i, signed)
		return nil
	})
	return self, inclusive, err
}

// FunctionCalls is the number of completed calls of function id, where the format counts
// them (negative where a difference's is); 0 otherwise.
func (p *Profile) FunctionCalls(id int) (int64, error) {
	var calls int64
	err := p.do(func(h *C.profpack_profile) error {
		var n C.uint64_t
		if err := call(func() C.profpack_status { return C.profpack_profile_function_calls(h, C.size_t(id), &n) }); err != nil {
			return err
		}
		calls = toInt64(n, p.isSigned(h))
		return nil
	})
	return calls, err
}

// UnitsPerSecond is event units per second when the events measure time (XRay ticks at the
// trace's TSC frequency, a sampled profile's samples); 0 when they do not.
func (p *Profile) UnitsPerSecond() (float64, error) {
	var v C.double
	err := p.do(func(h *C.profpack_profile) error {
		return call(func() C.profpack_status { return C.profpack_profile_units_per_second(h, &v) })
	})
	return float64(v), err
}

// EventUnitsPerSecond is event e's units per second where that event measures time, else 0:
// each event's own where they differ (a V8 profile's time and samples; pprof sample types by
// unit), else the profile's (UnitsPerSecond).
func (p *Profile) EventUnitsPerSecond(e int) (float64, error) {
	var v C.double
	err := p.do(func(h *C.profpack_profile) error {
		return call(func() C.profpack_status {
			return C.profpack_profile_event_units_per_second(h, C.size_t(e), &v)
		})
	})
	return float64(v), err
}

// EventBaseTotal is, for a difference that records its base (a pprof difference, as Diff
// makes one of stack profiles or go tool pprof -proto -diff_base saves one), the base's total
// of event e, which go tool pprof takes a difference's percentages of; 0 otherwise.
func (p *Profile) EventBaseTotal(e int) (uint64, error) {
	var v C.uint64_t
	err := p.do(func(h *C.profpack_profile) error {
		return call(func() C.profpack_status {
			return C.profpack_profile_event_base_total(h, C.size_t(e), &v)
		})
	})
	return uint64(v), err
}

// UnknownID is a PID or ThreadID the profile does not know (perf's -1).
const UnknownID = ^uint32(0)

// Thread is a thread whose figures a View can show on their own; either id may be UnknownID.
type Thread struct {
	PID, ThreadID uint32
}

// Threads lists the profile's threads (XRay threads; Callgrind parts with a thread: line).
func (p *Profile) Threads() ([]Thread, error) {
	var out []Thread
	err := p.do(func(h *C.profpack_profile) error {
		var n C.size_t
		if err := call(func() C.profpack_status { return C.profpack_profile_threads(h, nil, 0, &n) }); err != nil || n == 0 {
			return err
		}
		buf := make([]C.profpack_thread, n)
		if err := call(func() C.profpack_status { return C.profpack_profile_threads(h, &buf[0], n, &n) }); err != nil {
			return err
		}
		for _, t := range buf[:minInt(int(n), len(buf))] {
			out = append(out, Thread{uint32(t.pid), uint32(t.thread_id)})
		}
		return nil
	})
	return out, err
}

// LineCost is the self cost of one source line (Line 0: costs with no line information).
type LineCost struct {
	Line uint64
	Cost int64 // negative where a difference's is
}

// LineCosts returns the per-line self cost of event in one source file, ascending by line.
// file matches the profile's names exactly, or by the most trailing path components; a file
// that fits two of the profile's files as well (util.c for a/util.c and b/util.c) is an error
// of kind ErrInvalidArgument naming both.
func (p *Profile) LineCosts(file string, event int) ([]LineCost, error) {
	var out []LineCost
	if err := noNUL(file); err != nil {
		return nil, err
	}
	err := p.do(func(h *C.profpack_profile) error {
		cs := C.CString(file)
		defer C.free(unsafe.Pointer(cs))
		var n C.size_t
		if err := call(func() C.profpack_status {
			return C.profpack_profile_line_costs(h, cs, C.size_t(event), nil, 0, &n)
		}); err != nil || n == 0 {
			return err
		}
		buf := make([]C.profpack_line_cost, n)
		if err := call(func() C.profpack_status {
			return C.profpack_profile_line_costs(h, cs, C.size_t(event), &buf[0], n, &n)
		}); err != nil {
			return err
		}
		signed := p.isSigned(h)
		for _, l := range buf[:minInt(int(n), len(buf))] {
			out = append(out, LineCost{uint64(l.line), toInt64(l.cost, signed)})
		}
		return nil
	})
	return out, err
}

// SourceFiles returns the source files that have line costs, one name per file (the names of
// one file in the profile given once), sorted: LineCosts of each gives that file's lines, and
// each line cost of the profile is in exactly one of them.
func (p *Profile) SourceFiles() ([]string, error) {
	var out []string
	err := p.do(func(h *C.profpack_profile) error {
		var n C.size_t
		if err := call(func() C.profpack_status {
			return C.profpack_profile_source_files(h, nil, 0, &n)
		}); err != nil || n == 0 {
			return err
		}
		buf := make([]*C.char, n)
		if err := call(func() C.profpack_status {
			return C.profpack_profile_source_files(h, &buf[0], n, &n)
		}); err != nil {
			return err
		}
		for _, s := range buf[:minInt(int(n), len(buf))] {
			out = append(out, C.GoString(s))
		}
		return nil
	})
	return out, err
}

// Call is one side of a call arc: the caller (in Callers) or callee (in Callees), how often
// it was called where the format counts calls, and the inclusive cost of those calls
// (negative where a difference's are).
type Call struct {
	Function  int
	Calls     int64
	Inclusive int64
}

// Callers lists the functions that call id, most costly first, with costs of event.
func (p *Profile) Callers(id, event int) ([]Call, error) { return p.calls(id, event, true) }

// Callees lists the functions that id calls, most costly first, with costs of event.
func (p *Profile) Callees(id, event int) ([]Call, error) { return p.calls(id, event, false) }

func (p *Profile) calls(id, event int, callers bool) ([]Call, error) {
	var out []Call
	err := p.do(func(h *C.profpack_profile) error {
		fn := func(out *C.profpack_call, capacity C.size_t, n *C.size_t) C.profpack_status {
			if callers {
				return C.profpack_profile_callers(h, C.size_t(id), C.size_t(event), out, capacity, n)
			}
			return C.profpack_profile_callees(h, C.size_t(id), C.size_t(event), out, capacity, n)
		}
		var n C.size_t
		if err := call(func() C.profpack_status { return fn(nil, 0, &n) }); err != nil || n == 0 {
			return err
		}
		buf := make([]C.profpack_call, n)
		if err := call(func() C.profpack_status { return fn(&buf[0], n, &n) }); err != nil {
			return err
		}
		signed := p.isSigned(h)
		for _, c := range buf[:minInt(int(n), len(buf))] {
			out = append(out, Call{int(c.function), toInt64(c.calls, signed), toInt64(c.inclusive, signed)})
		}
		return nil
	})
	return out, err
}
