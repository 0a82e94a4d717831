// Profpack: read, store (.ppk) and write Callgrind, Cachegrind, gperftools, XRay and DCPI
// profiles from Swift, over the C library libprofpack.
import CProfpack

/// A profile format.
public enum Format: Int32, CustomStringConvertible, Sendable {
  case unknown = 0, ppk, callgrind, cachegrind, gperftools, xray, dcpi
  /// Written only: collapsed stacks, Chrome Trace Event JSON, pprof's profile.proto.
  case folded, traceEvent, pprof

  var c: profpack_format { profpack_format(rawValue: UInt32(rawValue)) }
  init(_ c: profpack_format) { self = Format(rawValue: Int32(c.rawValue)) ?? .unknown }

  /// The name the CLI uses ("ppk", "callgrind", ...).
  public var description: String { String(cString: profpack_format_name(c)) }

  /// The format named `name`, or `.unknown`.
  public init(name: String) { self.init(profpack_format_from_name(name)) }

  /// The format of a profile from its first bytes.
  public static func detect(_ bytes: [UInt8]) -> Format {
    bytes.withUnsafeBytes { Format(profpack_detect_format($0.baseAddress, $0.count)) }
  }
}

/// A failure reported by the library.
public struct ProfpackError: Error, CustomStringConvertible, Sendable {
  public enum Code: Int32, Sendable {
    case ok = 0, invalidArgument, io, malformed, unsupported, limit, noMemory, `internal`
  }
  public let code: Code
  /// The complete message, including format and position.
  public let message: String
  /// The format whose input was at fault, or "".
  public let format: String
  /// Byte offset of the defect, if known.
  public let offset: UInt64?
  /// 1-based line of the defect, if known.
  public let line: UInt64?
  public var description: String { message }
}

/// Calls `body` and turns a failure status into a thrown ProfpackError. The error is read on
/// the same thread right after the call, as the C library keeps it per thread.
func check(_ body: () -> profpack_status) throws {
  let status = body()
  if status == PROFPACK_OK { return }
  let e = profpack_last_error()!.pointee
  let unknown = UInt64.max
  throw ProfpackError(
    code: ProfpackError.Code(rawValue: Int32(status.rawValue)) ?? .internal,
    message: String(cString: e.message), format: String(cString: e.format),
    offset: e.offset == unknown ? nil : e.offset, line: e.line == unknown ? nil : e.line)
}

/// A cost event with its total over the whole profile.
public struct Event: Sendable, Equatable {
  public let name: String
  public let longName: String
  public let total: UInt64
}

/// One function with its cost for the event it was queried for.
public struct Function: Sendable, Equatable {
  public let id: Int
  public let name: String
  public let file: String
  public let object: String
  public let selfCost: UInt64
  public let inclusiveCost: UInt64
}

/// A profile in memory; freed when the last reference goes away.
public final class Profile {
  let handle: OpaquePointer

  init(_ handle: OpaquePointer) { self.handle = handle }
  deinit { profpack_profile_free(handle) }

  /// Reads a profile of any supported format, or a .ppk, from a file.
  public convenience init(path: String, strict: Bool = false) throws {
    var opts = profpack_read_options()
    profpack_read_options_init(&opts)
    if strict { opts.flags |= UInt32(PROFPACK_READ_STRICT) }
    var p: OpaquePointer?
    try check { profpack_read_file(path, &opts, &p) }
    self.init(p!)
  }

  /// Reads a profile from memory.
  public convenience init(bytes: [UInt8], strict: Bool = false) throws {
    var opts = profpack_read_options()
    profpack_read_options_init(&opts)
    if strict { opts.flags |= UInt32(PROFPACK_READ_STRICT) }
    var p: OpaquePointer?
    try bytes.withUnsafeBytes { raw in
      try check { profpack_read_memory(raw.baseAddress, raw.count, &opts, &p) }
    }
    self.init(p!)
  }

  /// The format the profile was originally read from.
  public var format: Format { Format(profpack_profile_format(handle)) }

  /// The profile written in `format` (for .ppk, at zstd `level`; nil: the library's default).
  public func bytes(as format: Format, level: Int32? = nil) throws -> [UInt8] {
    var wo = profpack_write_options()
    profpack_write_options_init(&wo)
    if let level { try check { profpack_write_options_set(&wo, PROFPACK_WRITE_PPK_LEVEL, Int64(level)) } }
    var buf: UnsafeMutableRawPointer?
    var size = 0
    try check { profpack_write_memory(handle, format.c, &wo, &buf, &size) }
    defer { profpack_free(buf) }
    return [UInt8](UnsafeRawBufferPointer(start: buf, count: size))
  }

  /// Writes the profile in `format` to `path`, atomically (for .ppk, at zstd `level`; nil: the
  /// library's default).
  public func write(to path: String, as format: Format, level: Int32? = nil) throws {
    var wo = profpack_write_options()
    profpack_write_options_init(&wo)
    if let level { try check { profpack_write_options_set(&wo, PROFPACK_WRITE_PPK_LEVEL, Int64(level)) } }
    try check { profpack_write_file(handle, format.c, path, &wo) }
  }

  /// The cost events in column order.
  public func events() throws -> [Event] {
    var n = 0
    try check { profpack_profile_events(handle, nil, 0, &n) }
    var buf = [profpack_event](repeating: profpack_event(), count: n)
    try check { profpack_profile_events(handle, &buf, n, &n) }
    return buf.map {
      Event(name: String(cString: $0.name), longName: String(cString: $0.long_name), total: $0.total)
    }
  }

  /// The index of the event with short name `name`.
  public func eventIndex(_ name: String) throws -> Int {
    var i = 0
    try check { profpack_profile_event_index(handle, name, &i) }
    return i
  }

  /// The `count` most costly functions for `event`.
  public func top(event: Int = 0, count: Int, inclusive: Bool = false) throws -> [Function] {
    var ids = [Int](repeating: 0, count: count)
    var n = 0
    let flags = inclusive ? UInt32(PROFPACK_TOP_INCLUSIVE) : 0
    try check { profpack_profile_top_functions(handle, event, flags, &ids, count, &n) }
    // Every function is ranked; the first `count` were written.
    return try ids.prefix(Swift.min(n, count)).map { id in
      var f = profpack_function()
      var selfCost: UInt64 = 0
      var incl: UInt64 = 0
      try check { profpack_profile_function(handle, id, &f) }
      try check { profpack_profile_function_cost(handle, id, event, &selfCost, &incl) }
      return Function(
        id: id, name: String(cString: f.name), file: String(cString: f.file),
        object: String(cString: f.object), selfCost: selfCost, inclusiveCost: incl)
    }
  }

  /// Per-line self cost of `event` in one source file, ascending by line.
  public func lineCosts(file: String, event: Int = 0) throws -> [(line: UInt64, cost: UInt64)] {
    var n = 0
    try check { profpack_profile_line_costs(handle, file, event, nil, 0, &n) }
    if n == 0 { return [] }
    var buf = [profpack_line_cost](repeating: profpack_line_cost(), count: n)
    try check { profpack_profile_line_costs(handle, file, event, &buf, n, &n) }
    return buf.map { (line: $0.line, cost: $0.cost) }
  }

  /// Whether two profiles hold the same IR (profpack_profile_equal; the CLI's `equal`).
  public func equal(to other: Profile) throws -> Bool {
    var eq: Int32 = 0
    try check { profpack_profile_equal(handle, other.handle, &eq) }
    return eq == 1
  }
}

/// The version of the loaded C library.
public var profpackVersion: String { String(cString: profpack_version_string()) }
