import CProfpack

/// A failure reported by the library.
public struct ProfpackError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What failed: the C API's status codes other than success. Each case's `rawValue` is its
  /// C constant's, read from the header (the doc comment of each case gives it).
  public enum Code: Sendable, CustomStringConvertible, CaseIterable, RawRepresentable, Hashable {
    /// `PROFPACK_ERROR_INVALID_ARGUMENT` (1): a bad option, an unknown format, a NULL handle.
    case invalidArgument
    /// `PROFPACK_ERROR_IO` (2): a file could not be opened, read or written.
    case io
    /// `PROFPACK_ERROR_MALFORMED` (3): the input is not a valid profile of its format.
    case malformed
    /// `PROFPACK_ERROR_UNSUPPORTED` (4): valid, but not something profpack can read or write.
    case unsupported
    /// `PROFPACK_ERROR_LIMIT` (5): the input exceeds an option's or a documented limit.
    case limit
    /// `PROFPACK_ERROR_NO_MEMORY` (6).
    case noMemory
    /// `PROFPACK_ERROR_INTERNAL` (7): a bug in profpack.
    case `internal`

    var c: profpack_status {
      switch self {
      case .invalidArgument: return PROFPACK_ERROR_INVALID_ARGUMENT
      case .io: return PROFPACK_ERROR_IO
      case .malformed: return PROFPACK_ERROR_MALFORMED
      case .unsupported: return PROFPACK_ERROR_UNSUPPORTED
      case .limit: return PROFPACK_ERROR_LIMIT
      case .noMemory: return PROFPACK_ERROR_NO_MEMORY
      case .internal: return PROFPACK_ERROR_INTERNAL
      }
    }
    /// The C constant's value.
    public var rawValue: Int32 { Int32(c.rawValue) }
    /// The code whose C constant is `rawValue`, or nil.
    public init?(rawValue: Int32) {
      guard let code = Code.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
      self = code
    }
    /// The status's English name, e.g. "malformed input".
    public var description: String { String(cString: profpack_status_name(c)) }
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

  init(code: Code, message: String) {
    self.init(code: code, message: message, format: "", offset: nil, line: nil)
  }
  init(code: Code, message: String, format: String, offset: UInt64?, line: UInt64?) {
    self.code = code
    self.message = message
    self.format = format
    self.offset = offset
    self.line = line
  }
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
