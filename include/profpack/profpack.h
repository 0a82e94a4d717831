/*
 * profpack: read, store and write performance profiles.
 * (size-exempt: the library's one public header, kept whole so that users read one file.)
 *
 * profpack reads Callgrind, Cachegrind, gperftools CPU profiles, LLVM XRay traces, DCPI
 * profiles, pprof (profile.proto), V8 CPU profiles, Chrome trace events and collapsed stacks
 * into one intermediate representation (IR), stores it zstd-compressed in `.ppk` files, and
 * writes it to every format that can hold it (profpack_format lists them).
 *
 * CONVENTIONS
 * - Every function that can fail returns a profpack_status. On failure, profpack_last_error()
 *   describes the failure on the calling thread: code, message, format, and the byte offset and
 *   line number of the defect where known.
 * - No C++ exception, abort() or exit() ever leaves this library: bad input, exhausted memory
 *   and internal faults all come back as a status.
 * - Ownership is stated at every function. Strings returned by a profpack_profile accessor are
 *   owned by the profile and live until profpack_profile_free(); buffers returned through
 *   `void **` are owned by the caller and released with profpack_free().
 * - Threads: the library keeps no global mutable state apart from the per-thread error. One
 *   profile may be read (inspected, written out) from several threads at once; freeing it must
 *   not race with any other use. A call may use helper threads of its own (reading a large
 *   profile, opening the binaries to name it from while it is read, building a large profile's
 *   figures, compressing large output); they end before the call returns, and the result is
 *   the same with or without them. Where no thread can be started, the call does the work
 *   itself.
 * - Versioning: every struct that may grow (options, profpack_info) starts with `struct_size`
 *   and has an *_init() function that sets it and the defaults; call it, then change the
 *   fields you need. A library newer than your header reads only the fields your
 *   `struct_size` covers. Passing NULL for options means "defaults". The element structs of
 *   lists (profpack_event, profpack_function, ...) never change; new figures come as new calls.
 * - Lists are two-call enumerations, all alike: `(T* out, size_t capacity, size_t* count)`.
 *   `*count` always receives the full number of elements; at most `capacity` are written to
 *   `out` (NULL with `capacity` 0 to learn the count first).
 * - A profile never changes after it is made: views (profpack_profile_view()), merges,
 *   differences and symbolization make new profiles.
 */
#ifndef PROFPACK_PROFPACK_H
#define PROFPACK_PROFPACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Version                                                                                     */

#define PROFPACK_VERSION_MAJOR 0
#define PROFPACK_VERSION_MINOR 1
#define PROFPACK_VERSION_PATCH 0
/** MAJOR * 10000 + MINOR * 100 + PATCH of the header you compiled against. */
#define PROFPACK_VERSION_NUMBER \
  (PROFPACK_VERSION_MAJOR * 10000 + PROFPACK_VERSION_MINOR * 100 + PROFPACK_VERSION_PATCH)
/* The string from the numbers, so the two cannot disagree (meson.build reads the numbers). */
#define PROFPACK_STRINGIFY_(x) #x
#define PROFPACK_STRINGIFY(x) PROFPACK_STRINGIFY_(x)
#define PROFPACK_VERSION_STRING              \
  PROFPACK_STRINGIFY(PROFPACK_VERSION_MAJOR) \
  "." PROFPACK_STRINGIFY(PROFPACK_VERSION_MINOR) "." PROFPACK_STRINGIFY(PROFPACK_VERSION_PATCH)

#if defined(_WIN32)
#define PROFPACK_API
#else
#define PROFPACK_API __attribute__((visibility("default")))
#endif

/** The version of the library loaded at run time, as PROFPACK_VERSION_NUMBER. */
PROFPACK_API unsigned profpack_version_number(void);
/** The version of the library loaded at run time, e.g. "0.1.0". Static storage. */
PROFPACK_API const char* profpack_version_string(void);

/* ------------------------------------------------------------------------------------------ */
/* Status and errors                                                                           */

typedef enum profpack_status {
  PROFPACK_OK = 0,
  PROFPACK_ERROR_INVALID_ARGUMENT = 1, /**< a NULL handle, a bad option, an unknown format */
  PROFPACK_ERROR_IO = 2,               /**< a file could not be opened, read or written */
  PROFPACK_ERROR_MALFORMED = 3,        /**< the input is not a valid profile of its format */
  PROFPACK_ERROR_UNSUPPORTED = 4,      /**< valid, but not something profpack can read/write */
  PROFPACK_ERROR_LIMIT = 5,            /**< the input exceeds an option's or a documented limit */
  PROFPACK_ERROR_NO_MEMORY = 6,        /**< memory ran out */
  PROFPACK_ERROR_INTERNAL = 7          /**< a bug in profpack; please report it */
} profpack_status;

/** Position value meaning "not known" in profpack_error. */
#define PROFPACK_UNKNOWN_POSITION UINT64_MAX

/** The details of the last failure on the calling thread. */
typedef struct profpack_error {
  profpack_status code;
  /** Complete one-line message, including format and position, e.g.
   *  "cachegrind: line 12, byte offset 301: count line before any fn= line". Never NULL. */
  const char* message;
  /** The format whose input was at fault ("cachegrind", "ppk", ...), or "". Never NULL. */
  const char* format;
  uint64_t offset; /**< byte offset of the defect in the input, or PROFPACK_UNKNOWN_POSITION */
  uint64_t line;   /**< 1-based line number (text formats), or PROFPACK_UNKNOWN_POSITION */
} profpack_error;

/**
 * The last error on the calling thread. Never NULL: after a success, `code` is PROFPACK_OK and
 * `message` is "". The pointer and its strings stay valid until the next profpack call on this
 * thread. Every call that returns a status resets it first.
 */
PROFPACK_API const profpack_error* profpack_last_error(void);

/** A static English name of a status, e.g. "malformed input". */
PROFPACK_API const char* profpack_status_name(profpack_status status);

/* ------------------------------------------------------------------------------------------ */
/* Formats                                                                                     */

typedef enum profpack_format {
  PROFPACK_FORMAT_UNKNOWN = 0,
  PROFPACK_FORMAT_PPK = 1, /**< profpack's own container */
  PROFPACK_FORMAT_CALLGRIND = 2,
  PROFPACK_FORMAT_CACHEGRIND = 3,
  PROFPACK_FORMAT_GPERFTOOLS = 4,  /**< gperftools CPU profile */
  PROFPACK_FORMAT_XRAY = 5,        /**< LLVM XRay trace, FDR or basic mode */
  PROFPACK_FORMAT_DCPI = 6,        /**< DIGITAL Continuous Profiling Infrastructure profile */
  PROFPACK_FORMAT_FOLDED = 7,      /**< collapsed stacks (flamegraph.pl, inferno, py-spy) */
  PROFPACK_FORMAT_TRACE_EVENT = 8, /**< Chrome Trace Event JSON (Perfetto, chrome://tracing) */
  PROFPACK_FORMAT_PPROF = 9,       /**< pprof profile.proto, gzip-compressed or bare */
  PROFPACK_FORMAT_CPUPROFILE = 10, /**< read only: V8 CPU profile (node --cpu-prof, DevTools) */
  PROFPACK_FORMAT_PERF = 11,       /**< read only: Linux perf.data (file or pipe mode) */
  PROFPACK_FORMAT_PERF_SCRIPT = 12 /**< read only: `perf script` text */
} profpack_format;

/** "ppk", "callgrind", "cachegrind", "gperftools", "xray", "dcpi", "folded", "trace-event",
 * "pprof", "cpuprofile", "perf", "perf-script", or "unknown". Static. */
PROFPACK_API const char* profpack_format_name(profpack_format format);
/** The format of a name as profpack_format_name() spells it; PROFPACK_FORMAT_UNKNOWN if none. */
PROFPACK_API profpack_format profpack_format_from_name(const char* name);
/** The format a file's name says it holds, for choosing an output format: by its ending
 * (".ppk", ".pb.gz"/".pprof"/".pb" pprof, ".folded"/".collapsed", ".json" trace events, ".prof"
 * gperftools, ".xray", ".dcpi", ".data" perf, ".perf-script", ".callgrind", ".cachegrind") or the
 * name its profiler gives it ("callgrind.out.PID", "cachegrind.out.PID", "xray-log.*",
 * "perf.data*"); PROFPACK_FORMAT_UNKNOWN where it
 * says none, or for NULL. Reading never uses it: the format comes from the content. */
PROFPACK_API profpack_format profpack_format_for_path(const char* path);
/** profpack_format_info.flags: profiles are read from this format. */
#define PROFPACK_FORMAT_READABLE 0x1u
/** profpack_format_info.flags: profiles are written in this format. */
#define PROFPACK_FORMAT_WRITABLE 0x2u
/** profpack_format_info.flags: written, the format holds source files or lines; a profile
 *  written in a format without this flag is the same read with PROFPACK_READ_NO_LINES. */
#define PROFPACK_FORMAT_WRITES_LINES 0x4u

/** What a format is (profpack_format_describe()). The strings are static. */
typedef struct profpack_format_info {
  uint32_t struct_size;    /**< set by profpack_format_info_init() */
  uint32_t flags;          /**< PROFPACK_FORMAT_READABLE, PROFPACK_FORMAT_WRITABLE */
  const char* name;        /**< as profpack_format_name() spells it */
  const char* description; /**< a short English description, e.g. "gperftools CPU profile" */
  /** The endings of the file names that profpack_format_for_path() takes for this format,
   *  space-separated (".pb.gz .pprof .pb"); "" for none. */
  const char* endings;
  /** The names its profiler gives files that profpack_format_for_path() takes for this
   *  format, space-separated, '*' for the rest ("callgrind.out.*"); "" for none. */
  const char* file_names;
} profpack_format_info;

/** Zeroes `*info` and sets its struct_size, for profpack_format_describe(). */
PROFPACK_API void profpack_format_info_init(profpack_format_info* info);
/**
 * Describes `format` in `*info` (initialised by profpack_format_info_init(); only the fields its
 * struct_size covers are filled). The formats are the values from 1 up to the first that gives
 * PROFPACK_ERROR_INVALID_ARGUMENT, so a caller can list every format this library knows;
 * PROFPACK_FORMAT_UNKNOWN also gives PROFPACK_ERROR_INVALID_ARGUMENT.
 */
PROFPACK_API profpack_status profpack_format_describe(profpack_format format,
                                                      profpack_format_info* info);
/** The format of a profile from its first bytes (file names are never consulted). */
PROFPACK_API profpack_format profpack_detect_format(const void* data, size_t size);

/* ------------------------------------------------------------------------------------------ */
/* Options                                                                                     */

/** Make recoverable defects (e.g. an XRay trace that ends inside a record) errors. */
#define PROFPACK_READ_STRICT 0x1u
/**
 * A hint that the profile will be queried or converted to another format, not written as a
 * `.ppk` or in its own format: the reader may leave the parts of the IR that only those need to
 * be built when first asked for (writing the profile as `.ppk` or in its own format later
 * builds them then, on the calling thread). Queries, conversions and `.ppk` output are the same
 * with or without it; what differs is when the work is done. Formats whose readers build
 * nothing that only those writes need ignore it. profpack_read_options.output_format lets the
 * library decide this instead. With PROFPACK_READ_SYMBOLIZE it covers the names too: a
 * profile whose format allows it (perf.data) keeps the IR it was read into, and the copy of it
 * with the symbol section is built when first asked for.
 */
#define PROFPACK_READ_DEFER_IR 0x2u
/**
 * Name the functions of a profile that holds only instruction addresses (gperftools, DCPI)
 * from its binaries as it is read, as `go tool pprof` does: the profile then answers by name,
 * and a write in another format or as `.ppk` is what profpack_profile_symbolize() and then the
 * write would give. Nothing changes where no binary is found, or for a profile that names its
 * functions or has been symbolized already. A mapping's binary is looked for in the
 * directories of `binary_path`, then of the PROFPACK_BINARY_PATH environment variable
 * (':'-separated), by its base name and by its recorded path under the directory, then at the
 * path the profile records. A file found there is taken only if it can be the one that ran:
 * where the profile records a build id, the file has it; where it records none (gperftools),
 * one of the file's loadable segments fits the mapping's offset and size, and the file was not
 * modified after the profile file (profpack_read_file(), profpack_read_files(); not checked for
 * profpack_read_memory()). Each file skipped as not the binary that ran is a warning of the
 * profile (profpack_profile_warnings()); a missing binary is none.
 */
#define PROFPACK_READ_SYMBOLIZE 0x4u
/**
 * With PROFPACK_READ_SYMBOLIZE: name functions from the binaries' symbol tables only, as
 * `perf script` and `go tool pprof -symbolize=fastlocal` do. No DWARF is read, so there are no
 * source files or lines and no inline frames (each address is the one function whose symbol
 * covers it); what it saves is opening the debug information, which is often compressed and
 * then decompressed whole (libc's takes about 35 ms). Kernel frames are named as without it.
 */
#define PROFPACK_READ_SYMBOL_TABLES_ONLY 0x8u
/**
 * With PROFPACK_READ_SYMBOLIZE: name functions, with their inline frames where the binaries
 * have DWARF, but look up no source file or line: the profile's functions and locations then
 * have none. For a profile that is only to be written in a format without lines (those whose
 * profpack_format_info.flags lack PROFPACK_FORMAT_WRITES_LINES: folded stacks, trace events),
 * where that output is the same as without it. The line tables are a tenth of what naming a
 * perf recording of a small program from libc's debug information costs, once that is read.
 */
#define PROFPACK_READ_NO_LINES 0x10u

typedef struct profpack_read_options {
  uint32_t struct_size; /**< sizeof(profpack_read_options), set by the init function */
  uint32_t flags;       /**< PROFPACK_READ_* bits; default 0 */
  /** Largest decompressed `.ppk` message accepted, in bytes; default 4 GiB. A larger
   *  declaration is refused with PROFPACK_ERROR_LIMIT before anything is allocated. */
  uint64_t max_ppk_size;
  /** Read the input as this format instead of detecting it (an input that is not valid in
   *  that format is malformed). Default PROFPACK_FORMAT_UNKNOWN: detect from the content. */
  profpack_format format;
  /** Not read: it keeps the fields below beyond the size of the struct before them, so that
   *  a caller built against that header, whose struct_size covers this padding, never has it
   *  read as a later field. */
  uint32_t reserved;
  /** The format the profile is to be written in, where the caller knows it (a conversion):
   *  the library then leaves what only other writes need to be built on first use, as
   *  PROFPACK_READ_DEFER_IR does, where that suits the input's format and this one. Every
   *  output is the same either way. Default PROFPACK_FORMAT_UNKNOWN: not known. */
  profpack_format output_format;
  /** With PROFPACK_READ_SYMBOLIZE: directories to look for binaries in, an array of
   *  `binary_path_count` strings; NULL with 0 (default) for none. Not retained after the
   *  call. Read only where struct_size covers them. */
  const char* const* binary_path;
  size_t binary_path_count;
} profpack_read_options;

PROFPACK_API void profpack_read_options_init(profpack_read_options* options);

/**
 * Write parameters: each applies to one output format and is ignored by the others. They are
 * keys rather than struct fields, so a format's new parameter never changes the struct.
 * profpack_write_param_bounds() gives each one's range and default, and
 * profpack_write_param_describe() describes every parameter the library has (each format
 * declares its own), with its name as text for profpack_write_options_set_text().
 */
typedef enum profpack_write_param {
  /** `.ppk`: zstd level, 1-22; default 3. */
  PROFPACK_WRITE_PPK_LEVEL = 1,
  /** XRay: mode, -1 (default) the input's, 0 basic mode, 1 FDR. */
  PROFPACK_WRITE_XRAY_MODE = 2,
  /** XRay: file version, 0 (default) the input's (or FDR 5 / basic 3 when the mode changes),
   *  else FDR 1-5 or basic 1-3. */
  PROFPACK_WRITE_XRAY_VERSION = 3,
  /** gperftools: slot width in bytes, 0 (default) as read, 4 or 8. A value that does not fit
   *  a 4-byte slot is PROFPACK_ERROR_UNSUPPORTED at write time. */
  PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES = 4,
  /** gperftools: byte order, 0 (default) as read, 1 little-endian, 2 big-endian. */
  PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER = 5,
  /** Folded stacks of a profile whose threads name their processes (perf): what starts each
   *  line, as stackcollapse-perf.pl writes it: 0 (default) the command name, 1 name-PID,
   *  2 name-PID/TID, 3 nothing. */
  PROFPACK_WRITE_FOLDED_PROCESS = 6,
  /** DCPI (a string): the image to write when the profile has several, as its path or its
   *  index in decimal; default NULL, for a profile of one image. */
  PROFPACK_WRITE_DCPI_IMAGE = 64
} profpack_write_param;

/**
 * Write options: set up with profpack_write_options_init(), then set parameters by key. The
 * members other than struct_size are the library's; do not touch them. A string parameter is
 * borrowed: it must stay valid until the write call that uses the options returns.
 */
typedef struct profpack_write_options {
  uint32_t struct_size;  /**< set by profpack_write_options_init() */
  uint32_t reserved_set; /**< which parameters are set (the library's) */
  int64_t reserved_values[16];
  const char* reserved_strings[4];
} profpack_write_options;

/** Sets `*options` to the defaults of every parameter. */
PROFPACK_API void profpack_write_options_init(profpack_write_options* options);

/** Sets integer parameter `param`; PROFPACK_ERROR_INVALID_ARGUMENT (options unchanged) if
 *  `value` is out of its bounds or `param` is not an integer parameter. */
PROFPACK_API profpack_status profpack_write_options_set(profpack_write_options* options,
                                                        profpack_write_param param, int64_t value);

/** Sets string parameter `param` (NULL: back to the default). The string is borrowed. */
PROFPACK_API profpack_status profpack_write_options_set_string(profpack_write_options* options,
                                                               profpack_write_param param,
                                                               const char* value);

/** The lowest and highest value and the default of integer parameter `param`; any pointer
 *  may be NULL. PROFPACK_ERROR_INVALID_ARGUMENT for a string or unknown parameter. */
PROFPACK_API profpack_status profpack_write_param_bounds(profpack_write_param param,
                                                         int64_t* lowest, int64_t* highest,
                                                         int64_t* default_value);

/** What a write parameter is: profpack_write_param_describe() fills it. */
typedef struct profpack_write_param_info {
  uint32_t struct_size;       /**< set by profpack_write_param_info_init() */
  profpack_write_param param; /**< its key */
  profpack_format format;     /**< the output format that reads it */
  const char* name;           /**< its name as text, e.g. "xray-mode" (the CLI's --xray-mode) */
  const char* help;           /**< one line: what it chooses */
  const char* values;         /**< its values in words, e.g. "basic or fdr" */
  /** Named values of an integer parameter as "NAME=VALUE,...", e.g. "basic=0,fdr=1"; NULL
   *  where it takes numbers only (and for a string parameter). */
  const char* choices;
  int32_t is_string; /**< 1 for a string parameter (set_string), 0 for an integer one */
  int64_t lowest;    /**< an integer parameter's bounds and default; 0 for a string one */
  int64_t highest;
  int64_t default_value;
} profpack_write_param_info;
/* The strings of profpack_write_param_info are static. */

/** Zeroes `*info` and sets its struct_size, for profpack_write_param_describe(). */
PROFPACK_API void profpack_write_param_info_init(profpack_write_param_info* info);

/** The number of write parameters this library knows, for profpack_write_param_describe(). */
PROFPACK_API size_t profpack_write_param_count(void);

/** Describes write parameter `index` (0 .. profpack_write_param_count() - 1) into `*info`, set
 *  up by profpack_write_param_info_init(); fills only the fields its struct_size covers. */
PROFPACK_API profpack_status profpack_write_param_describe(size_t index,
                                                           profpack_write_param_info* info);

/**
 * Sets the parameter named `name` (profpack_write_param_info.name, e.g. "xray-mode") from the
 * text `value`: for an integer parameter one of its choice names ("fdr") or a decimal number,
 * checked against its bounds; for a string parameter the text itself, borrowed as by
 * profpack_write_options_set_string(). PROFPACK_ERROR_INVALID_ARGUMENT (options unchanged)
 * for an unknown name, or a value it does not take: the message names the values it takes.
 */
PROFPACK_API profpack_status profpack_write_options_set_text(profpack_write_options* options,
                                                             const char* name, const char* value);

/* ------------------------------------------------------------------------------------------ */
/* Reading and writing                                                                         */

/** An opaque profile. Create with profpack_read_*, release with profpack_profile_free(). */
typedef struct profpack_profile profpack_profile;

/**
 * Reads a profile of any supported format, or a `.ppk`, from `path` ("-" for standard input).
 * The format is detected from the content. On success `*out` receives a new profile owned by
 * the caller; on failure `*out` is set to NULL, and the error's message starts with `path`
 * ("a.out: cachegrind: line 3, byte offset 17: ..."). A profile may keep what its reading
 * built for its first query or conversion (a gperftools profile: the call tree), which uses it
 * instead of decoding the IR again. Standard input, a pipe or a device is read whole into memory;
 * where no format is given and its first 4 MiB (or all of a shorter stream) hold a NUL byte and
 * start no format, it is refused there (PROFPACK_ERROR_MALFORMED, "unrecognised input"), not
 * read on: every text format refuses a NUL byte and the binary ones are told by their first
 * bytes, and `/dev/zero` would otherwise be read until memory runs out.
 */
PROFPACK_API profpack_status profpack_read_file(const char* path,
                                                const profpack_read_options* options,
                                                profpack_profile** out);

/**
 * Reads `count` files that are parts of one profile as that profile: valgrind's
 * --separate-threads=yes writes a Callgrind file per thread (callgrind.out.PID-01, -02, ...),
 * read here as one profile with each file's thread (as KCachegrind loads them). One file is
 * profpack_read_file(). PROFPACK_ERROR_UNSUPPORTED for files of a format whose files are whole
 * profiles each (merge sums those); an error in one file starts with its path.
 */
PROFPACK_API profpack_status profpack_read_files(const char* const* paths, size_t count,
                                                 const profpack_read_options* options,
                                                 profpack_profile** out);

/** As profpack_read_file(), from `size` bytes at `data` (not retained after the call). */
PROFPACK_API profpack_status profpack_read_memory(const void* data, size_t size,
                                                  const profpack_read_options* options,
                                                  profpack_profile** out);

/**
 * Writes `profile` in `format` to `path` ("-" for standard output). The file is written
 * atomically: a temporary file beside `path` is renamed over it only once complete.
 */
PROFPACK_API profpack_status profpack_write_file(const profpack_profile* profile,
                                                 profpack_format format, const char* path,
                                                 const profpack_write_options* options);

/**
 * Writes `profile` in `format` to a new buffer. On success `*out_data` (owned by the caller,
 * release with profpack_free()) and `*out_size` describe it; on failure they are NULL and 0.
 */
PROFPACK_API profpack_status profpack_write_memory(const profpack_profile* profile,
                                                   profpack_format format,
                                                   const profpack_write_options* options,
                                                   void** out_data, size_t* out_size);

/** Releases a buffer returned by profpack_write_memory(). NULL is ignored. */
PROFPACK_API void profpack_free(void* data);

/** Releases a profile and every string it returned. NULL is ignored. */
PROFPACK_API void profpack_profile_free(profpack_profile* profile);

/* ------------------------------------------------------------------------------------------ */
/* Inspection                                                                                  */

/** The format the profile was originally read from (a `.ppk` remembers it). */
PROFPACK_API profpack_format profpack_profile_format(const profpack_profile* profile);

typedef struct profpack_info {
  uint32_t struct_size;       /**< set by profpack_info_init() */
  profpack_format format;     /**< source format */
  const char* format_version; /**< as the file states it, e.g. "1"; "" if none. Owned by profile */
  uint64_t parts;             /**< Callgrind dumps/threads; 1 for Cachegrind */
  uint64_t events;            /**< number of cost events (see profpack_profile_events) */
  uint64_t records;           /**< cost lines, samples, trace records or histogram chunks */
  uint64_t functions;         /**< distinct function names */
  uint64_t files;             /**< distinct source files */
  uint64_t objects;           /**< distinct objects (ELF objects, mappings, images) */
  uint64_t strings;           /**< interned strings */
  /** Size of the uncompressed IR message in bytes (what a .ppk compresses). Filled only when
   *  struct_size covers it, so callers built against older headers keep working. */
  uint64_t ir_bytes;
  /** 1 if the profile is a difference of profiles (profpack_diff, cg_diff's output): then
   *  every cost, total and call count this API returns as uint64_t holds a two's-complement
   *  int64_t and may be negative; 0 otherwise. Filled only when struct_size covers it. */
  int32_t signed_costs;
  /** What the profile holds: PROFPACK_HAS_* bits (a query of what it lacks answers with
   *  nothing, e.g. no callers where there are no call arcs). Filled only when struct_size
   *  covers it. */
  uint32_t capabilities;
} profpack_info;

/** Bits of profpack_info.capabilities. */
typedef enum profpack_capability {
  PROFPACK_HAS_CALL_ARCS = 1u << 0,   /**< caller -> callee arcs with inclusive costs */
  PROFPACK_HAS_CALL_COUNTS = 1u << 1, /**< how often each function and arc was called */
  PROFPACK_HAS_LINES = 1u << 2,       /**< self cost per source line */
  PROFPACK_HAS_ADDRESSES = 1u << 3,   /**< self cost per instruction address */
  PROFPACK_HAS_STACKS = 1u << 4,      /**< whole call stacks (folded, pprof) */
  PROFPACK_HAS_TIMELINE = 1u << 5,    /**< when each call began and ended (trace events) */
  PROFPACK_HAS_THREADS = 1u << 6,     /**< figures per thread (profpack_profile_view) */
  PROFPACK_HAS_NAMES = 1u << 7        /**< functions have names, not only addresses or ids */
} profpack_capability;

/** Zeroes `*info` and sets its struct_size, for profpack_profile_info(). */
PROFPACK_API void profpack_info_init(profpack_info* info);

/** Fills `*info` (set up by profpack_info_init()) with whole-profile figures. */
PROFPACK_API profpack_status profpack_profile_info(const profpack_profile* profile,
                                                   profpack_info* info);

typedef struct profpack_event {
  const char* name;      /**< short name, e.g. "Ir". Owned by the profile */
  const char* long_name; /**< e.g. "Instruction Fetches", or "". Owned by the profile */
  uint64_t total;        /**< sum of the self costs of this event over the whole profile */
} profpack_event;
/* Events per format: Callgrind/Cachegrind, the file's events; gperftools, "samples"; XRay,
 * "ticks" (time in TSC ticks); DCPI, the `event` header value (e.g. "cycles"). */

/**
 * Two-call enumeration of the profile's cost events in column order: call with
 * `events` NULL to learn the count in `*count`; then with an array of `capacity` entries.
 * If `capacity` is smaller than the count, the first `capacity` entries are filled and
 * `*count` still receives the full count.
 */
PROFPACK_API profpack_status profpack_profile_events(const profpack_profile* profile,
                                                     profpack_event* events, size_t capacity,
                                                     size_t* count);

/**
 * A difference NEW - BASE that records its base (a pprof difference, profpack's or
 * `go tool pprof -proto -diff_base`'s, whose base samples carry the label pprof::base=true; a
 * Cachegrind or Callgrind difference profpack made, with its `desc: Base totals:` line):
 * in `*total`, the base's total of event `event` (the sum of its samples' magnitudes), which
 * `go tool pprof` takes a difference's percentages of; 0 where the profile records no base.
 */
PROFPACK_API profpack_status profpack_profile_event_base_total(const profpack_profile* profile,
                                                               size_t event, uint64_t* total);

/**
 * The warnings raised while the profile was read or made (a truncated trace that was still
 * loaded; a mapping symbolization skipped), oldest first, as a two-call enumeration. The
 * strings are owned by the profile.
 */
PROFPACK_API profpack_status profpack_profile_warnings(const profpack_profile* profile,
                                                       const char** warnings, size_t capacity,
                                                       size_t* count);

/**
 * Sets `*equal` to 1 if the two profiles hold the same IR, else 0. Use it to check that a
 * conversion round trip lost nothing.
 */
PROFPACK_API profpack_status profpack_profile_equal(const profpack_profile* a,
                                                    const profpack_profile* b, int* equal);

/**
 * Merges `count` profiles (at least one) into a new profile, as cg_merge does for Cachegrind
 * files and `go tool pprof -proto A B` for pprof: costs summed per function, per source line
 * and per call arc (with call counts), call stacks summed per identical stack. The inputs may
 * be of any formats but must have the same events by name (in any order); otherwise
 * PROFPACK_ERROR_INVALID_ARGUMENT names the events that differ. Merging Cachegrind files
 * gives a Cachegrind profile with the merged summary; other merges are kept as Callgrind
 * (per-function, per-line and per-arc figures; threads and XRay timelines are not merged).
 * `names` (may be NULL, or hold NULLs) names each input in error messages, e.g. its file.
 * On success `*out` is a new profile, queryable, writable and storable as .ppk like any
 * other; free it with profpack_profile_free(). The inputs are not changed.
 */
PROFPACK_API profpack_status profpack_merge(const profpack_profile* const* profiles,
                                            const char* const* names, size_t count,
                                            profpack_profile** out);

/**
 * The same merge one profile at a time, for many inputs: add each profile (which may be freed
 * right after), then finish. Memory is bounded by the merged result, not by the sum of the
 * inputs. A merger whose first profile is gperftools takes only gperftools profiles. An error
 * from profpack_merger_add names the input (`name`, may be NULL); after a refusal for
 * different events or formats the merger holds the inputs before it and can go on, after any
 * other error it may hold part of that input. Free the merger with profpack_merger_free() in
 * every case.
 */
typedef struct profpack_merger profpack_merger;
PROFPACK_API profpack_status profpack_merger_new(profpack_merger** out);
/** Before the first profpack_merger_add: inputs' event `from` counts as event `to` (e.g. a
 *  DCPI profile's "cycles" merged with a Callgrind profile's "Ir"). Not retained: copied. */
PROFPACK_API profpack_status profpack_merger_rename_event(profpack_merger* merger, const char* from,
                                                          const char* to);
PROFPACK_API profpack_status profpack_merger_add(profpack_merger* merger,
                                                 const profpack_profile* profile, const char* name);
/** The merged profile (a new one, for profpack_profile_free()); at most once per merger. */
PROFPACK_API profpack_status profpack_merger_finish(profpack_merger* merger,
                                                    profpack_profile** out);
PROFPACK_API void profpack_merger_free(profpack_merger* merger);

typedef struct profpack_diff_options {
  uint32_t struct_size; /**< sizeof(profpack_diff_options), set by the init function */
  /** Rewrites of file names and of function names applied to both profiles before they are
   *  matched, as cg_diff's --mod-filename/--mod-funcname: each "s/REGEX/REPLACEMENT/" (any
   *  delimiter after the s, an optional trailing g; ECMAScript regular expressions, $1..$9 in
   *  the replacement). Arrays of `*_count` strings; NULL with a count of 0 (default) for none.
   *  Not retained after the call. */
  const char* const* mod_filename;
  size_t mod_filename_count;
  const char* const* mod_funcname;
  size_t mod_funcname_count;
  /** Names of the two profiles (e.g. their files), for error messages and the "Files
   *  compared:" line of a Cachegrind difference; NULL (default) for none. */
  const char* base_name;
  const char* current_name;
  /** Event renames applied to both profiles before their events are matched: each
   *  "FROM=TO"; an array of `event_renames_count` strings, NULL with 0 (default) for none. */
  const char* const* event_renames;
  size_t event_renames_count;
} profpack_diff_options;

PROFPACK_API void profpack_diff_options_init(profpack_diff_options* options);

/**
 * The difference `current` - `base`, as cg_diff computes it for Cachegrind files and
 * `go tool pprof -diff_base` shows it: every cost, per-line cost, call count and arc of
 * `current` less `base`'s, functions matched by object, file and name (after the rewrites).
 * The profiles need the same events, as for profpack_merge(). The result's costs are signed
 * (profpack_info.signed_costs is 1): a Cachegrind profile if both inputs are Cachegrind (as
 * cg_diff writes it), else Callgrind; writing it as gperftools or DCPI, which cannot hold
 * negative counts, is PROFPACK_ERROR_UNSUPPORTED. `options` may be NULL. On success `*out` is
 * a new profile; free it with profpack_profile_free().
 */
PROFPACK_API profpack_status profpack_diff(const profpack_profile* base,
                                           const profpack_profile* current,
                                           const profpack_diff_options* options,
                                           profpack_profile** out);

/* ------------------------------------------------------------------------------------------ */
/* Symbolization                                                                               */

typedef struct profpack_symbolize_options {
  uint32_t struct_size; /**< sizeof(profpack_symbolize_options), set by the init function */
  /** Directories searched for a mapping's binary by its base name, after the path the mapping
   *  names and before the directories of the PROFPACK_BINARY_PATH environment variable
   *  (':'-separated): an array of `binary_path_count` strings, NULL with 0 (default) for none.
   *  Not retained after the call. */
  const char* const* binary_path;
  size_t binary_path_count;
  /** A profile whose functions are ids (XRay): the instrumented executable that ran, which
   *  maps the ids to functions; required for such a profile, ignored for others. NULL
   *  (default) for none. Not retained. */
  const char* binary;
  /** A kallsyms table (a copy of /proc/kallsyms) of the kernel the profile was recorded on,
   *  to name its kernel frames. NULL (default): the copy in perf's build-id cache under the
   *  recorded kernel's build id (binary_path directories, then $HOME/.debug), else
   *  /proc/kallsyms where the running kernel is the recorded one (its build id, else its
   *  release, is the profile's), else kernel frames stay unnamed with a warning. Not
   *  retained. */
  const char* kallsyms;
  /** Non-zero: names from the binaries' symbol tables only, without DWARF (no source lines, no
   *  inline frames), as PROFPACK_READ_SYMBOL_TABLES_ONLY does on read. Default 0. Read only
   *  where struct_size covers it. */
  int symbol_tables_only;
} profpack_symbolize_options;

PROFPACK_API void profpack_symbolize_options_init(profpack_symbolize_options* options);

/**
 * Names the instruction addresses of an address-based profile (gperftools, DCPI) from the ELF
 * binaries its mappings name, with elfutils: function names (symbol tables, then DWARF,
 * demangled), source files and lines, and inline chains. Separate debug information is found
 * through the build id and .gnu_debuglink under /usr/lib/debug; nothing is fetched from the
 * network unless DEBUGINFOD_URLS is set. Callers' frames are looked up at their return address
 * less one (the call instruction); the stored addresses do not change.
 *
 * `*out` is a new profile (free it with profpack_profile_free()): the same IR with a symbol
 * section, so it answers every query by name (functions with all their addresses summed,
 * per-line costs for profpack_profile_line_costs(), stacks with inline frames) and keeps the
 * names when written as .ppk, after the binaries are gone. Its lossless rewrite to the original
 * format is unchanged. Each mapping that could not be symbolized (binary missing, a directory,
 * a device or FIFO, not ELF, no loadable segment at the mapping's offset, corrupt debug
 * information) is a warning of `*out` (profpack_profile_warnings()) naming the mapping and the
 * reason; the rest is still symbolized. Callgrind and Cachegrind profiles carry names already:
 * they come back unchanged, with a warning. XRay traces hold function ids, not addresses:
 * with `options->binary` each function is named from the binary, with the file and line of its
 * entry (profpack_profile_function_line()), and keeps every figure of the trace; without it,
 * PROFPACK_ERROR_INVALID_ARGUMENT. `options` may be NULL.
 */
PROFPACK_API profpack_status profpack_profile_symbolize(const profpack_profile* profile,
                                                        const profpack_symbolize_options* options,
                                                        profpack_profile** out);

/* ------------------------------------------------------------------------------------------ */
/* Queries: what an editor asks                                                                */
/*
 * Functions are numbered 0 .. count-1 in a fixed order per profile. A function is a name in
 * a source file and object (Callgrind/Cachegrind: `fn=` in its `fl=`/`fi=` file and `ob=`).
 * Costs are per event; `event` is an index into profpack_profile_events(). The first query
 * builds an index of the profile (linear in its size) that later queries reuse; it is safe
 * to query one profile from several threads.
 */

/** Index of the event with short name `name` (e.g. "Ir"); PROFPACK_ERROR_INVALID_ARGUMENT
 *  naming the known events if there is none. */
PROFPACK_API profpack_status profpack_profile_event_index(const profpack_profile* profile,
                                                          const char* name, size_t* index);

typedef struct profpack_function {
  const char* name;   /**< function name. Owned by the profile */
  const char* file;   /**< source file, or "". Owned by the profile */
  const char* object; /**< ELF object or mapping, or "". Owned by the profile */
} profpack_function;

/** Every function, in id order (element i is function id i), as a two-call enumeration. */
PROFPACK_API profpack_status profpack_profile_functions(const profpack_profile* profile,
                                                        profpack_function* functions,
                                                        size_t capacity, size_t* count);

/** Flags of profpack_profile_find_functions(). */
enum {
  /** Instead of the functions `pattern` names, up to `capacity` whose names are nearest it
   *  (fewest edits, case folded; names containing it first): "did you mean" after a miss. */
  PROFPACK_FIND_SIMILAR = 1u << 0
};
/**
 * The ids of the functions `pattern` names, ascending (two-call enumeration: `*count` is the
 * number found): those named exactly `pattern`; else, for FILE:FUNCTION (a colon not part of
 * "::"), those named FUNCTION in a file that is FILE or ends in "/FILE"; else those whose name
 * the ECMAScript regular expression `pattern` matches anywhere, as pprof's -focus takes one (an
 * invalid expression matches none). No match is not an error: `*count` is 0.
 */
PROFPACK_API profpack_status profpack_profile_find_functions(const profpack_profile* profile,
                                                             const char* pattern, uint32_t flags,
                                                             size_t* ids, size_t capacity,
                                                             size_t* count);
/** Describes function `id`. */
PROFPACK_API profpack_status profpack_profile_function(const profpack_profile* profile, size_t id,
                                                       profpack_function* out);

/** The line at which function `id` starts in its file, where the profile knows it (a
 *  symbolized XRay profile: the line of the function's entry); 0 otherwise. */
PROFPACK_API profpack_status profpack_profile_function_line(const profpack_profile* profile,
                                                            size_t id, uint64_t* line);

/**
 * Self and inclusive cost of function `id` for `event`. Inclusive cost counts recursion once:
 * for a function that is called, it is the sum of the inclusive costs of the calls to it from
 * other functions (as callgrind_annotate --inclusive=yes reports it); otherwise its self cost
 * plus the costs of its calls. Either output pointer may be NULL.
 */
PROFPACK_API profpack_status profpack_profile_function_cost(const profpack_profile* profile,
                                                            size_t id, size_t event, uint64_t* self,
                                                            uint64_t* inclusive);

/**
 * Completed calls of function `id`: for XRay, entries matched by their exits; for Callgrind,
 * the sum of the call counts of every call to it; 0 where the format does not count calls.
 */
PROFPACK_API profpack_status profpack_profile_function_calls(const profpack_profile* profile,
                                                             size_t id, uint64_t* calls);

/**
 * Event units per second when the events measure time (XRay: "ticks" at the TSC frequency of
 * the trace header; a sampled profile: samples, each standing for its sampling period, as
 * gperftools' header gives it), so seconds = cost / `*per_second`; 0 when they do not.
 */
PROFPACK_API profpack_status profpack_profile_units_per_second(const profpack_profile* profile,
                                                               double* per_second);

/**
 * The units per second of one event where that event measures time, else 0: where a profile's
 * events differ (a V8 profile's `time` and its `samples` count; pprof sample types, by unit:
 * `cpu`/nanoseconds is time, `samples`/count is not), each event's own; else the profile's
 * (profpack_profile_units_per_second). Seconds = cost / `*per_second`.
 */
PROFPACK_API profpack_status profpack_profile_event_units_per_second(
    const profpack_profile* profile, size_t event, double* per_second);

/** A pid or thread id the profile does not know (perf's -1). */
#define PROFPACK_UNKNOWN_ID UINT32_MAX

/** A thread whose figures can be queried on their own (XRay: one (pid, thread id) pair); either
 *  id may be PROFPACK_UNKNOWN_ID. */
typedef struct profpack_thread {
  uint32_t pid;
  uint32_t thread_id;
} profpack_thread;

/**
 * Two-call enumeration of the profile's threads (XRay traces: by pid, then thread id; other
 * formats: none), as profpack_profile_line_costs() enumerates.
 */
PROFPACK_API profpack_status profpack_profile_threads(const profpack_profile* profile,
                                                      profpack_thread* threads, size_t capacity,
                                                      size_t* count);

/** profpack_view_options.thread: every thread (the default). */
#define PROFPACK_ALL_THREADS SIZE_MAX

/** What a view of a profile shows (profpack_profile_view()). */
typedef struct profpack_view_options {
  uint32_t struct_size; /**< set by profpack_view_options_init() */
  /** Restrict every figure (events' totals, functions, costs, calls, callers, callees, top,
   *  line costs) to thread `thread` of profpack_profile_threads(); PROFPACK_ALL_THREADS for
   *  all. Function ids of a thread's view differ from those of the whole profile. */
  size_t thread;
  /** For an XRay trace: the instrumented executable, whose `xray_instr_map` section and ELF
   *  symbols name the function ids (names only; profpack_profile_symbolize() also adds files
   *  and lines and keeps them in a .ppk). NULL: none. PROFPACK_ERROR_UNSUPPORTED for formats
   *  whose functions are not ids. */
  const char* binary;
  /** Only the samples whose labels match every selector (pprof's -tagfocus): an array of
   *  `tag_count` strings "KEY=REGEX", each kept by a sample that has a label KEY whose value
   *  (a number's in decimal) the ECMAScript regular expression REGEX matches anywhere (anchor
   *  it with ^...$ for the whole value). A view of a view keeps the selectors of both. NULL
   *  with 0 (default) for every sample. PROFPACK_ERROR_UNSUPPORTED for a profile whose
   *  samples carry no labels; PROFPACK_ERROR_INVALID_ARGUMENT for a selector without '=' or
   *  key, or a REGEX that does not compile. Not retained after the call. Read only where
   *  struct_size covers them. */
  const char* const* tags;
  size_t tag_count;
} profpack_view_options;

/** Sets `*options` to the defaults: every thread, no binary, every sample. */
PROFPACK_API void profpack_view_options_init(profpack_view_options* options);

/**
 * A view of `profile`: a new handle on the same data (nothing is copied), whose queries show
 * what `options` selects. `profile` itself is never changed, so every call on any handle is
 * safe from any thread. Free the view with profpack_profile_free(); it stays valid after
 * `profile` is freed. Writing a view writes the whole profile.
 */
PROFPACK_API profpack_status profpack_profile_view(const profpack_profile* profile,
                                                   const profpack_view_options* options,
                                                   profpack_profile** out);

/** Rank by inclusive rather than self cost in profpack_profile_top_functions(). */
#define PROFPACK_TOP_INCLUSIVE 0x1u

/**
 * Every function ranked by its cost of `event`, most costly first (ties by name), as ids: a
 * two-call enumeration, so `*count` receives the number of functions and the first
 * `capacity` of the ranking are written to `ids` (the top `capacity`).
 */
PROFPACK_API profpack_status profpack_profile_top_functions(const profpack_profile* profile,
                                                            size_t event, uint32_t flags,
                                                            size_t* ids, size_t capacity,
                                                            size_t* count);

/** What profpack_profile_top() ranks, and which costs its rows carry. */
typedef struct profpack_top_options {
  uint32_t struct_size; /**< set by profpack_top_options_init() */
  /** PROFPACK_TOP_INCLUSIVE: rank by inclusive cost; default 0, by self cost. */
  uint32_t flags;
  /** The event ranked by, an index of profpack_profile_events(); default 0. Most costly first
   *  (a difference: the largest change first, whichever its sign), ties by name, then file. */
  size_t sort_event;
  /** The events whose costs each row carries, in this order, as indices of
   *  profpack_profile_events(): an array of `event_count`. NULL with 0 (default): every event,
   *  in column order. Not retained after the call. */
  const size_t* events;
  size_t event_count;
  /** Only thread `thread` of profpack_profile_threads(), as profpack_profile_view() shows it
   *  (function ids are then the view's); PROFPACK_ALL_THREADS (default) for every thread. */
  size_t thread;
  /** At most `limit` rows; 0 (default) for every function. */
  size_t limit;
} profpack_top_options;

/** Sets `*options` to the defaults: by self cost of event 0, every event, every thread, every
 *  function. */
PROFPACK_API void profpack_top_options_init(profpack_top_options* options);

/** One event's costs of a row of profpack_profile_top(). Signed: negative only in a
 *  difference (profpack_info.signed_costs); another profile's cost above INT64_MAX, which no
 *  real profile reaches, is given as INT64_MAX, as pprof's int64 values cap it. */
typedef struct profpack_top_cost {
  int64_t self;
  int64_t inclusive; /**< as profpack_profile_function_cost() counts it */
} profpack_top_cost;

/** A row of profpack_profile_top(): a function with its costs. */
typedef struct profpack_top_row {
  size_t function;    /**< the function's id */
  const char* name;   /**< Owned by the profile */
  const char* file;   /**< source file, or "". Owned by the profile */
  const char* object; /**< ELF object or mapping, or "". Owned by the profile */
  uint64_t line;      /**< as profpack_profile_function_line() */
  int64_t calls;      /**< as profpack_profile_function_calls(); signed as the costs */
  /** The row's costs, one per event of the options (every event by default), in their order:
   *  a pointer into the `costs` array the caller passed. */
  const profpack_top_cost* costs;
} profpack_top_row;

/**
 * The most costly functions with their costs of every event asked for, in one call: what
 * `profpack top` prints. A two-call enumeration of rows: `*count` receives the number of rows
 * (the functions, at most `limit`) and the first `capacity` are written to `rows`, their costs
 * to `costs`, which holds `capacity` times the number of events (options->event_count, or
 * every event of profpack_profile_events()): row i's are costs[i * events ...]. `options` may
 * be NULL (defaults). The strings are owned by the profile; with a thread, the rows are that
 * thread's, and the profile keeps what it built for them as it keeps its own index.
 */
PROFPACK_API profpack_status profpack_profile_top(const profpack_profile* profile,
                                                  const profpack_top_options* options,
                                                  profpack_top_row* rows, profpack_top_cost* costs,
                                                  size_t capacity, size_t* count);

typedef struct profpack_line_cost {
  uint64_t line; /**< 1-based source line (0: costs with no line information) */
  uint64_t cost; /**< self cost of `event` on that line, summed over all functions */
} profpack_line_cost;

/**
 * Two-call enumeration of the source files that have line costs, one name per file, sorted:
 * the names of one file in the profile (spelled two ways, or a relative name that can only be
 * that file's) are given once, by its absolute name where it has one. profpack_profile_line_costs()
 * of each name gives that file's lines, and each line cost of the profile is in exactly one of
 * them (a relative name that could be either of two files is a file of its own). The strings
 * stay valid as long as `profile`.
 */
PROFPACK_API profpack_status profpack_profile_source_files(const profpack_profile* profile,
                                                           const char** files, size_t capacity,
                                                           size_t* count);

/**
 * Per-line self cost of one source file, ascending by line: the numbers an editor gutter
 * shows. `file` matches the file name in the profile exactly; failing that, the names that
 * share the most trailing path components with it (at least the base name), so a path on this
 * machine finds the name the profile recorded elsewhere. Names are compared with their "." and
 * ".." components resolved (lexically), so every spelling of one file counts ("/src/hdr.h"
 * and "/src/sub/../hdr.h", as each unit included it). Where those names are of two or more
 * files ("util.c" asked for, "/src/a/util.c" and "/src/b/util.c" in the profile),
 * PROFPACK_ERROR_INVALID_ARGUMENT, whose message lists them: ask again with more of the path.
 * A relative name in the profile ("util.c", a unit compiled by a relative path) counts as the
 * file whose name it ends; one that ends the names of two files is either's, so it counts only
 * when asked for exactly (each name the profile lists answers for itself).
 * Two-call enumeration: `*count` always receives the full number of lines with cost; at most
 * `capacity` are written.
 */
PROFPACK_API profpack_status profpack_profile_line_costs(const profpack_profile* profile,
                                                         const char* file, size_t event,
                                                         profpack_line_cost* lines, size_t capacity,
                                                         size_t* count);

typedef struct profpack_call {
  size_t function;    /**< the caller (for callers) or callee (for callees) */
  uint64_t calls;     /**< number of calls (0 where the format does not count calls) */
  uint64_t inclusive; /**< inclusive cost of `event` spent in these calls */
} profpack_call;

/** Functions that call `id`, two-call enumeration as profpack_profile_line_costs(). */
PROFPACK_API profpack_status profpack_profile_callers(const profpack_profile* profile, size_t id,
                                                      size_t event, profpack_call* calls,
                                                      size_t capacity, size_t* count);
/** Functions that `id` calls, two-call enumeration as profpack_profile_line_costs(). */
PROFPACK_API profpack_status profpack_profile_callees(const profpack_profile* profile, size_t id,
                                                      size_t event, profpack_call* calls,
                                                      size_t capacity, size_t* count);

/* ---- Archives (.ppka): many profiles in one file, docs/formats.md ---- */

typedef struct profpack_archive profpack_archive;

typedef struct profpack_archive_options {
  uint32_t struct_size; /**< set by profpack_archive_options_init() */
  /** Non-zero: open for profpack_archive_add/compact (an exclusive lock for the handle's life,
   *  waited for while another writable handle, of any process or thread, holds it), creating
   *  the file where it does not exist. Default 0: read only, and profpack_archive_add and
   *  profpack_archive_compact fail with PROFPACK_ERROR_INVALID_ARGUMENT. */
  int writable;
  /** zstd level (1-22) of what the handle adds; default 19. */
  int level;
} profpack_archive_options;

/** Sets `*options` to the defaults (read only, level 19). */
PROFPACK_API void profpack_archive_options_init(profpack_archive_options* options);
/** Opens the archive at `path` as of its last valid commit (an append cut short is ignored). */
PROFPACK_API profpack_status profpack_archive_open(const char* path,
                                                   const profpack_archive_options* options,
                                                   profpack_archive** out);
PROFPACK_API void profpack_archive_close(profpack_archive* archive);

/** One member of an archive, from its index: nothing is decoded. Strings are the handle's. */
typedef struct profpack_archive_member {
  uint32_t struct_size; /**< set by the caller to sizeof(profpack_archive_member) */
  uint64_t id;          /**< unique in the archive, from 1, in order of adding */
  const char* format;   /**< the format name it was read from */
  int64_t time;         /**< seconds since 1970 UTC */
  size_t label_count;
  uint64_t stored_bytes; /**< its compressed size in the archive */
  uint64_t ir_bytes;     /**< the size of its IR message */
} profpack_archive_member;

PROFPACK_API profpack_status profpack_archive_count(const profpack_archive* archive,
                                                    size_t* count);
PROFPACK_API profpack_status profpack_archive_member_info(const profpack_archive* archive,
                                                          size_t index,
                                                          profpack_archive_member* member);
/** The `label`th key=value label of member `index`; the strings are the handle's. */
PROFPACK_API profpack_status profpack_archive_member_label(const profpack_archive* archive,
                                                           size_t index, size_t label,
                                                           const char** key, const char** value);
/** Member `index` as a profile: every query and writer works on it. */
PROFPACK_API profpack_status profpack_archive_read(const profpack_archive* archive, size_t index,
                                                   profpack_profile** out);
/** Adds `count` profiles as one segment, each with `labels` ("key=value", `label_count` of
 *  them), and commits it; on failure the archive is as it was. A member's time is the one its
 *  profile records where it does (pprof's time_nanos), else `time` where it is not 0, else
 *  its file's modification time (profpack_read_file), else now. */
PROFPACK_API profpack_status profpack_archive_add(profpack_archive* archive,
                                                  const profpack_profile* const* profiles,
                                                  size_t count, const char* const* labels,
                                                  size_t label_count, int64_t time);
/** Decodes and checks every member; `*checked` (may be NULL) is how many were. */
PROFPACK_API profpack_status profpack_archive_verify(const profpack_archive* archive,
                                                     size_t* checked);
/** Rewrites the archive as one segment with one dictionary (atomically: by rename). */
PROFPACK_API profpack_status profpack_archive_compact(profpack_archive* archive);

/** The merge of the members at `indices` (`count` of them, at least one), read one at a time
 *  and merged as profpack_merger_add() merges them; free `*out` with profpack_profile_free().
 *  Nothing is extracted to files. */
PROFPACK_API profpack_status profpack_archive_merge(const profpack_archive* archive,
                                                    const size_t* indices, size_t count,
                                                    profpack_profile** out);
/** The difference NEW - BASE of two selections (e.g. this week against last week): the merge
 *  of the members at `current` less the merge of those at `base`, as profpack_diff() takes
 *  the difference of two profiles (`options` may be NULL). */
PROFPACK_API profpack_status profpack_archive_diff(const profpack_archive* archive,
                                                   const size_t* base, size_t base_count,
                                                   const size_t* current, size_t current_count,
                                                   const profpack_diff_options* options,
                                                   profpack_profile** out);
/** One member's figures of a function, for a trend over members: the self and inclusive
 *  cost, for `event` (a short name; NULL: the member's first event), of the functions named
 *  exactly `function` (in any file or object), summed; `*matched` is how many there are (0,
 *  with costs of 0, where the member has none). Output pointers may be NULL. */
PROFPACK_API profpack_status profpack_archive_function_cost(const profpack_archive* archive,
                                                            size_t index, const char* function,
                                                            const char* event, uint64_t* self,
                                                            uint64_t* inclusive, size_t* matched);

#ifdef __cplusplus
}
#endif

#endif /* PROFPACK_PROFPACK_H */
