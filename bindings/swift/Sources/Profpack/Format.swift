// Profpack: read, store (.ppk) and write Callgrind, Cachegrind, gperftools, XRay and DCPI
// profiles from Swift, over the C library libprofpack. Every exported C call has one Swift
// counterpart: profpack_profile is `Profile`, profpack_merger `Merger`, the options structs
// the `*Options` types, failures a thrown `ProfpackError`.
import CProfpack
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A profile format (profpack_format). Each case's `rawValue` is its C constant's, read from
/// the header (the doc comment of each case gives it).
public enum Format: CustomStringConvertible, Sendable, CaseIterable, RawRepresentable, Hashable {
  /// `PROFPACK_FORMAT_UNKNOWN` (0).
  case unknown
  /// `PROFPACK_FORMAT_PPK` (1): profpack's own container.
  case ppk
  /// `PROFPACK_FORMAT_CALLGRIND` (2).
  case callgrind
  /// `PROFPACK_FORMAT_CACHEGRIND` (3).
  case cachegrind
  /// `PROFPACK_FORMAT_GPERFTOOLS` (4): gperftools CPU profile.
  case gperftools
  /// `PROFPACK_FORMAT_XRAY` (5): LLVM XRay trace, FDR or basic mode.
  case xray
  /// `PROFPACK_FORMAT_DCPI` (6).
  case dcpi
  /// `PROFPACK_FORMAT_FOLDED` (7): collapsed stacks.
  case folded
  /// `PROFPACK_FORMAT_TRACE_EVENT` (8): Chrome Trace Event JSON.
  case traceEvent
  /// `PROFPACK_FORMAT_PPROF` (9): gzipped pprof profile.proto.
  case pprof
  /// `PROFPACK_FORMAT_CPUPROFILE` (10), read only: V8 CPU profile (node --cpu-prof, DevTools).
  case cpuprofile
  /// `PROFPACK_FORMAT_PERF` (11), read only: Linux perf.data (perf record), file or pipe mode.
  case perf
  /// `PROFPACK_FORMAT_PERF_SCRIPT` (12), read only: `perf script` text.
  case perfScript

  var c: profpack_format {
    switch self {
    case .unknown: return PROFPACK_FORMAT_UNKNOWN
    case .ppk: return PROFPACK_FORMAT_PPK
    case .callgrind: return PROFPACK_FORMAT_CALLGRIND
    case .cachegrind: return PROFPACK_FORMAT_CACHEGRIND
    case .gperftools: return PROFPACK_FORMAT_GPERFTOOLS
    case .xray: return PROFPACK_FORMAT_XRAY
    case .dcpi: return PROFPACK_FORMAT_DCPI
    case .folded: return PROFPACK_FORMAT_FOLDED
    case .traceEvent: return PROFPACK_FORMAT_TRACE_EVENT
    case .pprof: return PROFPACK_FORMAT_PPROF
    case .cpuprofile: return PROFPACK_FORMAT_CPUPROFILE
    case .perf: return PROFPACK_FORMAT_PERF
    case .perfScript: return PROFPACK_FORMAT_PERF_SCRIPT
    }
  }
  init(_ c: profpack_format) { self = Format.allCases.first { $0.c == c } ?? .unknown }

  /// The C constant's value.
  public var rawValue: Int32 { Int32(c.rawValue) }
  /// The format whose C constant is `rawValue`, or nil.
  public init?(rawValue: Int32) {
    guard let f = Format.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
    self = f
  }

  /// The name the CLI uses ("ppk", "callgrind", ...).
  public var description: String { String(cString: profpack_format_name(c)) }

  /// The format named `name`, or `.unknown`.
  public init(name: String) { self.init(profpack_format_from_name(name)) }

  /// The format a file's name says it holds (".pb.gz" pprof, ".ppk", "callgrind.out.123", ...),
  /// or `.unknown`: for choosing an output format. Reading never uses it.
  public init(path: String) { self.init(profpack_format_for_path(path)) }

  /// The format of a profile from its first bytes, or `.unknown`.
  public static func detect<Bytes: ContiguousBytes>(_ bytes: Bytes) -> Format {
    bytes.withUnsafeBytes { Format(profpack_detect_format($0.baseAddress, $0.count)) }
  }
}

/// What a format is (profpack_format_info).
public struct FormatInfo: Sendable, Equatable {
  public let format: Format
  /// As `Format.description` spells it.
  public let name: String
  /// A short English description.
  public let about: String
  /// Profiles are read from it.
  public let readable: Bool
  /// Profiles are written in it.
  public let writable: Bool
  /// The endings of the file names `Format(path:)` takes for it (".pb.gz").
  public let endings: [String]
  /// The names its profiler gives files ("callgrind.out.*").
  public let fileNames: [String]
  /// Written, it holds source files or lines (a profile read with `noLines` writes the same
  /// bytes in the formats without it: folded stacks, trace events).
  public let writesLines: Bool

  /// Every format the library knows, in the order of their values.
  public static func all() -> [FormatInfo] {
    Format.allCases.compactMap { try? $0.info() }
  }
}

extension Format {
  /// Describes the format (profpack_format_describe); throws `.invalidArgument` for `.unknown`.
  public func info() throws -> FormatInfo {
    var i = profpack_format_info()
    profpack_format_info_init(&i)
    try check { profpack_format_describe(c, &i) }
    func words(_ s: UnsafePointer<CChar>) -> [String] {
      String(cString: s).split(separator: " ").map(String.init)
    }
    return FormatInfo(
      format: self, name: String(cString: i.name), about: String(cString: i.description),
      readable: i.flags & UInt32(PROFPACK_FORMAT_READABLE) != 0,
      writable: i.flags & UInt32(PROFPACK_FORMAT_WRITABLE) != 0, endings: words(i.endings),
      fileNames: words(i.file_names),
      writesLines: i.flags & UInt32(PROFPACK_FORMAT_WRITES_LINES) != 0)
  }
}

/// The version of the loaded C library, e.g. "0.1.0".
public var profpackVersion: String { String(cString: profpack_version_string()) }

/// The version of the loaded C library as MAJOR * 10000 + MINOR * 100 + PATCH.
public var profpackVersionNumber: Int { Int(profpack_version_number()) }

/// Runs `body` with C copies of `strings` (nil for an empty array).
func withCStrings<R>(
  _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws -> R
) rethrows -> R {
  if strings.isEmpty { return try body(nil) }
  let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
  defer { copies.forEach { free($0) } }
  let consts = copies.map { UnsafePointer($0) }
  return try consts.withUnsafeBufferPointer { try body($0.baseAddress) }
}

/// Runs `body` with a C copy of `string`, or nil.
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) throws -> R)
  rethrows -> R
{
  guard let string else { return try body(nil) }
  return try string.withCString { try body($0) }
}
