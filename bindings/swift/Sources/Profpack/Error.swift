import CProfpack

/// A failure reported by the library.
public struct ProfpackError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What failed: the C API's status codes other than success.
  public enum Code: Int32, Sendable, CustomStringConvertible {
    case invalidArgument = 1
    case io, malformed, unsupported, limit, noMemory, `internal`
    /// The status's English name, e.g. "malformed input".
    public var description: String {
      String(cString: profpack_status_name(profpack_status(rawValue: UInt32(rawValue))))
    }
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
