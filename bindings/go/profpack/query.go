package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Function is a function of a profile; its ID indexes it in that profile (or view).
type Function struct {
	ID                 int
	Name, File, Object string
}

// Cost is a function with its costs for the event it was queried for.
type Cost struct {
	Function
	Self, Inclusive uint64
}

// Functions lists every function in ID order.
func (p *Profile) Functions() ([]Function, error) {
	defer runtime.KeepAlive(p)
	var n C.size_t
	if err := call(func() C.profpack_status { return C.profpack_profile_functions(p.handle(), nil, 0, &n) }); err != nil || n == 0 {
		return nil, err
	}
	buf := make([]C.profpack_function, n)
	if err := call(func() C.profpack_status { return C.profpack_profile_functions(p.p, &buf[0], n, &n) }); err != nil {
		return nil, err
	}
	out := make([]Function, 0, len(buf))
	for i, f := range buf[:min(int(n), len(buf))] {
		out = append(out, Function{i, C.GoString(f.name), C.GoString(f.file), C.GoString(f.object)})
	}
	return out, nil
}

// Function describes function id.
func (p *Profile) Function(id int) (Function, error) {
	defer runtime.KeepAlive(p)
	var f C.profpack_function
	if err := call(func() C.profpack_status { return C.profpack_profile_function(p.handle(), C.size_t(id), &f) }); err != nil {
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
		return nil, nil
	}
	return p.find(name, C.PROFPACK_FIND_SIMILAR, n)
}

func (p *Profile) find(pattern string, flags C.uint32_t, capacity int) ([]Function, error) {
	defer runtime.KeepAlive(p)
	cs := C.CString(pattern)
	defer C.free(unsafe.Pointer(cs))
	var n C.size_t
	if capacity == 0 {
		if err := call(func() C.profpack_status {
			return C.profpack_profile_find_functions(p.handle(), cs, flags, nil, 0, &n)
		}); err != nil || n == 0 {
			return nil, err
		}
		capacity = int(n)
	}
	ids := make([]C.size_t, capacity)
	if err := call(func() C.profpack_status {
		return C.profpack_profile_find_functions(p.handle(), cs, flags, &ids[0], C.size_t(capacity), &n)
	}); err != nil {
		return nil, err
	}
	out := make([]Function, 0, min(int(n), capacity))
	for _, id := range ids[:min(int(n), capacity)] {
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
	defer runtime.KeepAlive(p)
	var line C.uint64_t
	err := call(func() C.profpack_status { return C.profpack_profile_function_line(p.handle(), C.size_t(id), &line) })
	return uint64(line), err
}

// FunctionCost is the self and inclusive cost of function id for event.
func (p *Profile) FunctionCost(id, event int) (self, inclusive uint64, err error) {
	defer runtime.KeepAlive(p)
	var s, i C.uint64_t
	err = call(func() C.profpack_status {
		return C.profpack_profile_function_cost(p.handle(), C.size_t(id), C.size_t(event), &s, &i)
	})
	return uint64(s), uint64(i), err
}

// FunctionCalls is the number of completed calls of function id, where the format counts
// them; 0 otherwise.
func (p *Profile) FunctionCalls(id int) (uint64, error) {
	defer runtime.KeepAlive(p)
	var n C.uint64_t
	err := call(func() C.profpack_status { return C.profpack_profile_function_calls(p.handle(), C.size_t(id), &n) })
	return uint64(n), err
}

// UnitsPerSecond is event units per second when the events measure time (XRay ticks at the
// trace's TSC frequency); 0 when they do not.
func (p *Profile) UnitsPerSecond() (float64, error) {
	defer runtime.KeepAlive(p)
	var v C.double
	err := call(func() C.profpack_status { return C.profpack_profile_units_per_second(p.handle(), &v) })
	return float64(v), err
}

// Thread is a thread whose figures a View can show on their own.
type Thread struct {
	PID, ThreadID uint32
}

// Threads lists the profile's threads (XRay threads; Callgrind parts with a thread: line).
func (p *Profile) Threads() ([]Thread, error) {
	defer runtime.KeepAlive(p)
	var n C.size_t
	if err := call(func() C.profpack_status { return C.profpack_profile_threads(p.handle(), nil, 0, &n) }); err != nil || n == 0 {
		return nil, err
	}
	buf := make([]C.profpack_thread, n)
	if err := call(func() C.profpack_status { return C.profpack_profile_threads(p.p, &buf[0], n, &n) }); err != nil {
		return nil, err
	}
	out := make([]Thread, 0, len(buf))
	for _, t := range buf[:min(int(n), len(buf))] {
		out = append(out, Thread{uint32(t.pid), uint32(t.thread_id)})
	}
	return out, nil
}

// Top returns the n most costly functions for event, by self or inclusive cost, most costly
// first.
func (p *Profile) Top(event, n int, inclusive bool) ([]Cost, error) {
	defer runtime.KeepAlive(p)
	if n <= 0 {
		return nil, &Error{StatusInvalidArgument, "profpack: Top needs n > 0", "", Unknown, Unknown}
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
	out := make([]Cost, 0, min(int(count), n))
	for _, id := range ids[:min(int(count), n)] {
		f, err := p.Function(int(id))
		if err != nil {
			return nil, err
		}
		self, incl, err := p.FunctionCost(int(id), event)
		if err != nil {
			return nil, err
		}
		out = append(out, Cost{f, self, incl})
	}
	return out, nil
}

// LineCost is the self cost of one source line (Line 0: costs with no line information).
type LineCost struct {
	Line, Cost uint64
}

// LineCosts returns the per-line self cost of event in one source file, ascending by line.
// file matches the profile's names exactly, or by the most trailing path components.
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
	out := make([]LineCost, 0, len(buf))
	for _, l := range buf[:min(int(n), len(buf))] {
		out = append(out, LineCost{uint64(l.line), uint64(l.cost)})
	}
	return out, nil
}

// Call is one side of a call arc: the caller (in Callers) or callee (in Callees), how often
// it was called where the format counts calls, and the inclusive cost of those calls.
type Call struct {
	Function  int
	Calls     uint64
	Inclusive uint64
}

// Callers lists the functions that call id, most costly first, with costs of event.
func (p *Profile) Callers(id, event int) ([]Call, error) { return p.calls(id, event, true) }

// Callees lists the functions that id calls, most costly first, with costs of event.
func (p *Profile) Callees(id, event int) ([]Call, error) { return p.calls(id, event, false) }

func (p *Profile) calls(id, event int, callers bool) ([]Call, error) {
	defer runtime.KeepAlive(p)
	fn := func(out *C.profpack_call, capacity C.size_t, n *C.size_t) C.profpack_status {
		if callers {
			return C.profpack_profile_callers(p.handle(), C.size_t(id), C.size_t(event), out, capacity, n)
		}
		return C.profpack_profile_callees(p.handle(), C.size_t(id), C.size_t(event), out, capacity, n)
	}
	var n C.size_t
	if err := call(func() C.profpack_status { return fn(nil, 0, &n) }); err != nil || n == 0 {
		return nil, err
	}
	buf := make([]C.profpack_call, n)
	if err := call(func() C.profpack_status { return fn(&buf[0], n, &n) }); err != nil {
		return nil, err
	}
	out := make([]Call, 0, len(buf))
	for _, c := range buf[:min(int(n), len(buf))] {
		out = append(out, Call{int(c.function), uint64(c.calls), uint64(c.inclusive)})
	}
	return out, nil
}
