import CProfpack

/// One write parameter as the library describes it (profpack_write_param_info).
public struct WriteParamInfo: Sendable {
  /// Its key, as profpack_write_param's value.
  public let key: UInt32
  /// The output format that reads it.
  public let format: Format
  /// Its name as text, e.g. "xray-mode".
  public let name: String
  /// One line: what it chooses.
  public let help: String
  /// Its values in words, e.g. "basic or fdr".
  public let values: String
  /// Named values "basic=0,fdr=1"; nil where it takes numbers only.
  public let choices: String?
  public let isString: Bool
  public let lowest: Int64
  public let highest: Int64
  public let defaultValue: Int64

  /// Every write parameter the library knows.
  public static func all() throws -> [WriteParamInfo] {
    var out: [WriteParamInfo] = []
    for i in 0..<profpack_write_param_count() {
      var c = profpack_write_param_info()
      profpack_write_param_info_init(&c)
      try check { profpack_write_param_describe(i, &c) }
      out.append(
        WriteParamInfo(
          key: UInt32(c.param.rawValue), format: Format(c.format), name: String(cString: c.name),
          help: String(cString: c.help), values: String(cString: c.values),
          choices: c.choices.map { String(cString: $0) }, isString: c.is_string != 0,
          lowest: c.lowest, highest: c.highest, defaultValue: c.default_value))
    }
    return out
  }

  /// Checks `value` for the parameter named `name` as the library parses it: a choice name or
  /// a number within the bounds, or a string parameter's text. Throws naming the values taken.
  public static func validate(name: String, value: String) throws {
    var o = profpack_write_options()
    profpack_write_options_init(&o)
    try name.withCString { n in
      try value.withCString { v in
        try check { profpack_write_options_set_text(&o, n, v) }
      }
    }
  }
}
