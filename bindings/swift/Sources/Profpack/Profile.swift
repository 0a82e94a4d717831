import CProfpack
import Foundation

/// A profile in memory (profpack_profile). It never changes after it is made, and the C
/// library allows concurrent calls on it, so it is `Sendable`: share it between tasks freely.
/// It is freed when the last reference goes away.
public final class Profile: @unchecked Sendable {
  let handle: OpaquePointer

  init(_ handle: OpaquePointer) { self.handle = handle }
  deinit { profpack_profile_free(handle) }

  /// Reads a profile of any supported format, or a .ppk, from a file.
  public convenience init(path: String, options: ReadOptions = ReadOptions()) throws {
    var p: OpaquePointer?
    try options.withC { opts in try check { profpack_read_file(path, opts, &p) } }
    self.init(p!)
  }

  /// Reads files that are parts of one profile as that profile: valgrind's
  /// --separate-threads=yes writes a Callgrind file per thread (callgrind.out.PID-01, -02, ...),
  /// each a thread of the result.
  public convenience init(paths: [String], options: ReadOptions = ReadOptions()) throws {
    var p: OpaquePointer?
    let copies = paths.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var list = copies.map { UnsafePointer<CChar>($0) }
    try options.withC { opts in try check { profpack_read_files(&list, list.count, opts, &p) } }
    self.init(p!)
  }

  /// Reads a profile from memory.
  public convenience init<Bytes: ContiguousBytes>(data: Bytes, options: ReadOptions = ReadOptions())
    throws
  {
    var p: OpaquePointer?
    try options.withC { opts in
      try data.withUnsafeBytes { raw in
        try check { profpack_read_memory(raw.baseAddress, raw.count, opts, &p) }
      }
    }
    self.init(p!)
  }

  /// The format the profile was originally read from (a .ppk remembers it).
  public var format: Format { Format(profpack_profile_format(handle)) }

  /// The profile written in `format`, e.g. `.pprof` for go tool pprof.
  public func data(as format: Format, options: WriteOptions = WriteOptions()) throws -> Data {
    var buf: UnsafeMutableRawPointer?
    var size = 0
    try options.withC { wo in try check { profpack_write_memory(handle, format.c, wo, &buf, &size) }
    }
    defer { profpack_free(buf) }
    return Data(bytes: buf!, count: size)
  }

  /// Writes the profile in `format` to `path`, atomically.
  public func write(to path: String, as format: Format, options: WriteOptions = WriteOptions())
    throws
  {
    try options.withC { wo in try check { profpack_write_file(handle, format.c, path, wo) } }
  }

  /// Whole-profile figures (profpack_info).
  public struct Info: Sendable, Equatable {
    public let format: Format
    public let formatVersion: String
    public let parts, events, records, functions, files, objects, strings, irBytes: UInt64
    /// A difference of profiles: its costs are two's-complement Int64 values.
    public let signedCosts: Bool
    /// What the profile holds: a query of what it lacks answers with nothing.
    public let capabilities: Capabilities
  }

  /// What a profile holds (profpack_capability).
  public struct Capabilities: OptionSet, Sendable, Equatable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// `PROFPACK_HAS_CALL_ARCS` (0x01): caller -> callee arcs with inclusive costs.
    public static let callArcs = Capabilities(rawValue: PROFPACK_HAS_CALL_ARCS.rawValue)
    /// `PROFPACK_HAS_CALL_COUNTS` (0x02): how often each function and arc was called.
    public static let callCounts = Capabilities(rawValue: PROFPACK_HAS_CALL_COUNTS.rawValue)
    /// `PROFPACK_HAS_LINES` (0x04): self cost per source line.
    public static let lines = Capabilities(rawValue: PROFPACK_HAS_LINES.rawValue)
    /// `PROFPACK_HAS_ADDRESSES` (0x08): self cost per instruction address.
    public static let addresses = Capabilities(rawValue: PROFPACK_HAS_ADDRESSES.rawValue)
    /// `PROFPACK_HAS_STACKS` (0x10): whole call stacks.
    public static let stacks = Capabilities(rawValue: PROFPACK_HAS_STACKS.rawValue)
    /// `PROFPACK_HAS_TIMELINE` (0x20): when each call began and ended.
    public static let timeline = Capabilities(rawValue: PROFPACK_HAS_TIMELINE.rawValue)
    /// `PROFPACK_HAS_THREADS` (0x40): figures per thread (`view(thread:)`).
    public static let threads = Capabilities(rawValue: PROFPACK_HAS_THREADS.rawValue)
    /// `PROFPACK_HAS_NAMES` (0x80): functions have names, not only addresses or ids.
    public static let names = Capabilities(rawValue: PROFPACK_HAS_NAMES.rawValue)
  }

  /// Whole-profile figures.
  public func info() throws -> Info {
    var i = profpack_info()
    profpack_info_init(&i)
    try check { profpack_profile_info(handle, &i) }
    return Info(
      format: Format(i.format), formatVersion: String(cString: i.format_version), parts: i.parts,
      events: i.events, records: i.records, functions: i.functions, files: i.files,
      objects: i.objects, strings: i.strings, irBytes: i.ir_bytes, signedCosts: i.signed_costs != 0,
      capabilities: Capabilities(rawValue: i.capabilities)
    )
  }

  /// Whether the profile's costs are signed (a difference).
  func signedCosts() throws -> Bool {
    var i = profpack_info()
    profpack_info_init(&i)
    try check { profpack_profile_info(handle, &i) }
    return i.signed_costs != 0
  }

  /// What the reader said about the input, oldest first.
  public func warnings() throws -> [String] {
    var n = 0
    try check { profpack_profile_warnings(handle, nil, 0, &n) }
    var buf = [UnsafePointer<CChar>?](repeating: nil, count: n)
    try check { profpack_profile_warnings(handle, &buf, n, &n) }
    return buf.prefix(n).map { String(cString: $0!) }
  }

  /// The cost events in column order.
  public func events() throws -> [Event] {
    var n = 0
    try check { profpack_profile_events(handle, nil, 0, &n) }
    var buf = [profpack_event](repeating: profpack_event(), count: n)
    try check { profpack_profile_events(handle, &buf, n, &n) }
    let signed = try signedCosts()
    return buf.prefix(n).map {
      Event(
        name: String(cString: $0.name), longName: String(cString: $0.long_name),
        total: signedCost($0.total, signed: signed))
    }
  }

  /// The index of the event with short name `name` (e.g. "Ir").
  public func eventIndex(_ name: String) throws -> Int {
    var i = 0
    try check { profpack_profile_event_index(handle, name, &i) }
    return i
  }

  /// Whether two profiles hold the same IR (profpack_profile_equal; the CLI's `equal`).
  public func equal(to other: Profile) throws -> Bool {
    var eq: Int32 = 0
    try check { profpack_profile_equal(handle, other.handle, &eq) }
    return eq == 1
  }

  /// A new profile on the same data that shows one thread (an index of `threads()`; nil: all),
  /// only the samples whose labels match every one of `tags` ("KEY=REGEX": a label KEY whose
  /// value REGEX matches anywhere, as pprof's -tagfocus; `.unsupported` for a profile without
  /// labels) and, for an XRay trace, names function ids from `binary`. This profile is
  /// unchanged.
  public func view(thread: Int? = nil, binary: String? = nil, tags: [String] = []) throws
    -> Profile
  {
    var o = profpack_view_options()
    profpack_view_options_init(&o)
    if let thread { o.thread = thread }
    var v: OpaquePointer?
    try withCStrings(tags) { t in
      o.tags = t
      o.tag_count = tags.count
      try withOptionalCString(binary) { b in
        o.binary = b
        try check { profpack_profile_view(handle, &o, &v) }
      }
    }
    return Profile(v!)
  }

  /// A new profile whose addresses (gperftools, DCPI) or XRay ids are named from binaries:
  /// functions, files, lines and inline frames, kept when written as .ppk.
  public func symbolize(_ options: SymbolizeOptions = SymbolizeOptions()) throws -> Profile {
    var o = profpack_symbolize_options()
    profpack_symbolize_options_init(&o)
    o.symbol_tables_only = options.symbolTablesOnly ? 1 : 0
    var s: OpaquePointer?
    try withCStrings(options.binaryPath) { dirs in
      o.binary_path = dirs
      o.binary_path_count = options.binaryPath.count
      try withOptionalCString(options.binary) { b in
        o.binary = b
        try withOptionalCString(options.kallsyms) { k in
          o.kallsyms = k
          try check { profpack_profile_symbolize(handle, &o, &s) }
        }
      }
    }
    return Profile(s!)
  }
}

/// A cost or count of the C API as Int64: a difference's two's complement, or another
/// profile's value, capped at Int64.max as pprof caps its int64 values.
func signedCost(_ v: UInt64, signed: Bool) -> Int64 {
  signed ? Int64(bitPattern: v) : Int64(clamping: v)
}

/// A cost event with its total over the whole profile (or the view's thread).
public struct Event: Sendable, Equatable {
  public let name: String
  public let longName: String
  /// Negative where a difference's is.
  public let total: Int64
}
