package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import "unsafe"

// TopOptions say what Top ranks and which costs its rows carry (profpack_top_options); nil
// or the zero value: by self cost of event 0, every event, every thread, every function.
type TopOptions struct {
	// Events whose costs each row carries, in this order, as indices of Events; nil: every
	// event in column order.
	Events []int
	// SortEvent is the event ranked by, an index of Events; default 0.
	SortEvent int
	// Inclusive ranks by inclusive rather than self cost.
	Inclusive bool
	// Thread restricts the rows to one thread, an index of Threads (function IDs are then
	// those of a View of that thread); nil: every thread.
	Thread *int
	// Limit is the most rows returned; 0: every function.
	Limit int
}

// TopCost is one event's costs of a TopRow (negative where a difference's are).
type TopCost struct {
	Self, Inclusive int64
}

// TopRow is a function with its costs, as `profpack top` prints it.
type TopRow struct {
	Function
	Line  uint64    // where the function starts, where the profile knows it; else 0
	Calls int64     // completed calls, where the format counts them; else 0
	Costs []TopCost // one per event of TopOptions.Events (every event by default), in order
}

// Top returns the most costly functions, most costly first (a difference: the largest change
// first), ties by name, with their costs of every event asked for: profpack_profile_top.
// opts may be nil.
func (p *Profile) Top(opts *TopOptions) ([]TopRow, error) {
	var o TopOptions
	if opts != nil {
		o = *opts
	}
	var rows []TopRow
	err := p.do(func(h *C.profpack_profile) error {
		var co C.profpack_top_options
		C.profpack_top_options_init(&co)
		if o.Inclusive {
			co.flags |= C.PROFPACK_TOP_INCLUSIVE
		}
		if o.SortEvent < 0 || o.Limit < 0 || (o.Thread != nil && *o.Thread < 0) {
			return newError(StatusInvalidArgument, "Top: a negative SortEvent, Limit or Thread")
		}
		co.sort_event = C.size_t(o.SortEvent)
		co.limit = C.size_t(o.Limit)
		if o.Thread != nil {
			co.thread = C.size_t(*o.Thread)
		}
		if o.Events != nil {
			ev := C.malloc(C.size_t(len(o.Events)+1) * C.size_t(unsafe.Sizeof(C.size_t(0))))
			defer C.free(ev)
			list := unsafe.Slice((*C.size_t)(ev), len(o.Events))
			for i, e := range o.Events {
				if e < 0 {
					return newError(StatusInvalidArgument, "Top: a negative event index")
				}
				list[i] = C.size_t(e)
			}
			co.events = (*C.size_t)(ev)
			co.event_count = C.size_t(len(o.Events))
		}
		ne := len(o.Events)
		if o.Events == nil {
			var n C.size_t
			if err := call(func() C.profpack_status { return C.profpack_profile_events(h, nil, 0, &n) }); err != nil {
				return err
			}
			ne = int(n)
		}
		var n C.size_t
		if err := call(func() C.profpack_status { return C.profpack_profile_top(h, &co, nil, nil, 0, &n) }); err != nil || n == 0 {
			return err
		}
		// C memory: the rows point into the costs array.
		cr := (*C.profpack_top_row)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.profpack_top_row{}))))
		defer C.free(unsafe.Pointer(cr))
		cc := (*C.profpack_top_cost)(C.malloc(C.size_t(int(n)*ne+1) * C.size_t(unsafe.Sizeof(C.profpack_top_cost{}))))
		defer C.free(unsafe.Pointer(cc))
		capacity := n
		if err := call(func() C.profpack_status { return C.profpack_profile_top(h, &co, cr, cc, capacity, &n) }); err != nil {
			return err
		}
		crs := unsafe.Slice(cr, int(capacity))[:minInt(int(n), int(capacity))]
		costs := unsafe.Slice(cc, int(capacity)*ne)
		rows = make([]TopRow, len(crs))
		for i, r := range crs {
			row := TopRow{Function: Function{int(r.function), C.GoString(r.name), C.GoString(r.file),
				C.GoString(r.object)}, Line: uint64(r.line), Calls: int64(r.calls), Costs: make([]TopCost, ne)}
			for k, c := range costs[i*ne : (i+1)*ne] {
				row.Costs[k] = TopCost{int64(c.self), int64(c.inclusive)}
			}
			rows[i] = row
		}
		return nil
	})
	return rows, err
}

// TopFunctions returns the IDs of the most costly functions, ranked as Top ranks them
// (opts.SortEvent, opts.Inclusive, opts.Thread, opts.Limit), without their costs:
// profpack_profile_top_functions. opts may be nil.
func (p *Profile) TopFunctions(opts *TopOptions) ([]int, error) {
	var o TopOptions
	if opts != nil {
		o = *opts
	}
	if o.SortEvent < 0 || o.Limit < 0 {
		return nil, newError(StatusInvalidArgument, "TopFunctions: a negative SortEvent or Limit")
	}
	if o.Thread != nil {
		v, err := p.View(&ViewOptions{Thread: o.Thread})
		if err != nil {
			return nil, err
		}
		defer v.Close()
		o.Thread = nil
		return v.TopFunctions(&o)
	}
	var ids []int
	err := p.do(func(h *C.profpack_profile) error {
		var flags C.uint32_t
		if o.Inclusive {
			flags = C.PROFPACK_TOP_INCLUSIVE
		}
		var n C.size_t
		if err := call(func() C.profpack_status {
			return C.profpack_profile_top_functions(h, C.size_t(o.SortEvent), flags, nil, 0, &n)
		}); err != nil || n == 0 {
			return err
		}
		if o.Limit > 0 && C.size_t(o.Limit) < n {
			n = C.size_t(o.Limit)
		}
		buf := make([]C.size_t, n)
		capacity := n
		if err := call(func() C.profpack_status {
			return C.profpack_profile_top_functions(h, C.size_t(o.SortEvent), flags, &buf[0], capacity, &n)
		}); err != nil {
			return err
		}
		for _, id := range buf[:minInt(int(n), int(capacity))] {
			ids = append(ids, int(id))
		}
		return nil
	})
	return ids, err
}
