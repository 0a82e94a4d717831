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

/// A profile format.
public enum Format: Int32, CustomStringConvertible, Sendable, CaseIterable {
  case unknown = 0
  case ppk, callgrind, cachegrind, gperftools, xray, dcpi
  /// Written only: collapsed stacks, Chrome Trace Event JSON, pprof's profile.proto.
  case folded, traceEvent, pprof

  var c: profpack_format { profpack_format(rawValue: UInt32(rawValue)) }
  init(_ c: profpack_format) { self = Format(rawValue: Int32(c.rawValue)) ?? .unknown }

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
