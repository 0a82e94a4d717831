package profpack

/*
#include <stdlib.h>
#include <profpack/profpack.h>
*/
import "C"

import (
	"strconv"
	"strings"
	"unsafe"
)

// WriteParamInfo describes one write parameter (profpack_write_param_info): the format that
// reads it, its name as text, its values and bounds.
type WriteParamInfo struct {
	Param    WriteParam
	Format   Format
	Name     string // e.g. "xray-mode"
	Help     string // one line
	Values   string // its values in words, e.g. "basic or fdr"
	Choices  string // named values "basic=0,fdr=1"; "" where it takes numbers only
	IsString bool
	Lowest   int64
	Highest  int64
	Default  int64
}

// WriteParams describes every write parameter the library knows
// (profpack_write_param_count, profpack_write_param_describe).
func WriteParams() ([]WriteParamInfo, error) {
	n := int(C.profpack_write_param_count())
	out := make([]WriteParamInfo, 0, n)
	for i := 0; i < n; i++ {
		var ci C.profpack_write_param_info
		C.profpack_write_param_info_init(&ci)
		if err := call(func() C.profpack_status {
			return C.profpack_write_param_describe(C.size_t(i), &ci)
		}); err != nil {
			return nil, err
		}
		info := WriteParamInfo{WriteParam(ci.param), Format(ci.format), C.GoString(ci.name),
			C.GoString(ci.help), C.GoString(ci.values), "", ci.is_string != 0,
			int64(ci.lowest), int64(ci.highest), int64(ci.default_value)}
		if ci.choices != nil {
			info.Choices = C.GoString(ci.choices)
		}
		out = append(out, info)
	}
	return out, nil
}

// SetText sets the parameter named name (e.g. "xray-mode") from text: a choice name ("fdr")
// or a number within its bounds, or a string parameter's text; the library checks it
// (profpack_write_options_set_text) and its error names the values taken.
func (o *WriteOptions) SetText(name, value string) error {
	if err := noNUL(name, value); err != nil {
		return err
	}
	var co C.profpack_write_options
	C.profpack_write_options_init(&co)
	cn, cv := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cv))
	if err := call(func() C.profpack_status {
		return C.profpack_write_options_set_text(&co, cn, cv)
	}); err != nil {
		return err
	}
	params, err := WriteParams()
	if err != nil {
		return err
	}
	for _, p := range params {
		if p.Name != name {
			continue
		}
		if p.IsString {
			o.SetString(p.Param, value)
			return nil
		}
		for _, c := range strings.Split(p.Choices, ",") {
			if k, v, ok := strings.Cut(c, "="); ok && k == value {
				n, _ := strconv.ParseInt(v, 10, 64)
				o.Set(p.Param, n)
				return nil
			}
		}
		n, _ := strconv.ParseInt(value, 10, 64)
		o.Set(p.Param, n)
	}
	return nil
}
