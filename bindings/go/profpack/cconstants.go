package profpack

/*
#include <profpack/profpack.h>
*/
import "C"

// cConstant is an exported constant of this package beside the C constant it stands for.
type cConstant struct {
	name  string
	goVal uint64
	cVal  uint64
}

// cConstants lists every exported constant with a C counterpart, for the test that each
// equals it (the constants are literals, so that go doc shows their values; test files
// cannot use cgo).
func cConstants() []cConstant {
	return []cConstant{
		{"FormatUnknown", uint64(FormatUnknown), C.PROFPACK_FORMAT_UNKNOWN},
		{"FormatPPK", uint64(FormatPPK), C.PROFPACK_FORMAT_PPK},
		{"FormatCallgrind", uint64(FormatCallgrind), C.PROFPACK_FORMAT_CALLGRIND},
		{"FormatCachegrind", uint64(FormatCachegrind), C.PROFPACK_FORMAT_CACHEGRIND},
		{"FormatGperftools", uint64(FormatGperftools), C.PROFPACK_FORMAT_GPERFTOOLS},
		{"FormatXRay", uint64(FormatXRay), C.PROFPACK_FORMAT_XRAY},
		{"FormatDCPI", uint64(FormatDCPI), C.PROFPACK_FORMAT_DCPI},
		{"FormatFolded", uint64(FormatFolded), C.PROFPACK_FORMAT_FOLDED},
		{"FormatTraceEvent", uint64(FormatTraceEvent), C.PROFPACK_FORMAT_TRACE_EVENT},
		{"FormatPprof", uint64(FormatPprof), C.PROFPACK_FORMAT_PPROF},
		{"FormatCpuprofile", uint64(FormatCpuprofile), C.PROFPACK_FORMAT_CPUPROFILE},
		{"FormatPerf", uint64(FormatPerf), C.PROFPACK_FORMAT_PERF},
		{"FormatPerfScript", uint64(FormatPerfScript), C.PROFPACK_FORMAT_PERF_SCRIPT},
		{"StatusOK", uint64(StatusOK), C.PROFPACK_OK},
		{"StatusInvalidArgument", uint64(StatusInvalidArgument), C.PROFPACK_ERROR_INVALID_ARGUMENT},
		{"StatusIO", uint64(StatusIO), C.PROFPACK_ERROR_IO},
		{"StatusMalformed", uint64(StatusMalformed), C.PROFPACK_ERROR_MALFORMED},
		{"StatusUnsupported", uint64(StatusUnsupported), C.PROFPACK_ERROR_UNSUPPORTED},
		{"StatusLimit", uint64(StatusLimit), C.PROFPACK_ERROR_LIMIT},
		{"StatusNoMemory", uint64(StatusNoMemory), C.PROFPACK_ERROR_NO_MEMORY},
		{"StatusInternal", uint64(StatusInternal), C.PROFPACK_ERROR_INTERNAL},
		{"WritePPKLevel", uint64(WritePPKLevel), C.PROFPACK_WRITE_PPK_LEVEL},
		{"WriteXRayMode", uint64(WriteXRayMode), C.PROFPACK_WRITE_XRAY_MODE},
		{"WriteXRayVersion", uint64(WriteXRayVersion), C.PROFPACK_WRITE_XRAY_VERSION},
		{"WriteGperftoolsSlotSize", uint64(WriteGperftoolsSlotSize), C.PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES},
		{"WriteFoldedProcess", uint64(WriteFoldedProcess), C.PROFPACK_WRITE_FOLDED_PROCESS},
		{"WriteGperftoolsOrder", uint64(WriteGperftoolsOrder), C.PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER},
		{"WriteDCPIImage", uint64(WriteDCPIImage), C.PROFPACK_WRITE_DCPI_IMAGE},
		{"HasCallArcs", uint64(HasCallArcs), C.PROFPACK_HAS_CALL_ARCS},
		{"HasCallCounts", uint64(HasCallCounts), C.PROFPACK_HAS_CALL_COUNTS},
		{"HasLines", uint64(HasLines), C.PROFPACK_HAS_LINES},
		{"HasAddresses", uint64(HasAddresses), C.PROFPACK_HAS_ADDRESSES},
		{"HasStacks", uint64(HasStacks), C.PROFPACK_HAS_STACKS},
		{"HasTimeline", uint64(HasTimeline), C.PROFPACK_HAS_TIMELINE},
		{"HasThreads", uint64(HasThreads), C.PROFPACK_HAS_THREADS},
		{"HasNames", uint64(HasNames), C.PROFPACK_HAS_NAMES},
		{"Unknown", Unknown, uint64(C.PROFPACK_UNKNOWN_POSITION)},
	}
}
