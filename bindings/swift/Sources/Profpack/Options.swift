import CProfpack

/// How to read a profile (profpack_read_options).
public struct ReadOptions: Sendable {
  /// Make recoverable defects (a cut file) errors instead of warnings.
  public var strict = false
  /// Largest decompressed .ppk accepted, in bytes; nil: the library's default (4 GiB).
  public var maxPPKSize: UInt64? = nil
  /// Read as this format instead of detecting it.
  public var format: Format = .unknown
  /// A hint that the profile will be queried or converted to another format, not written as
  /// .ppk or in its own format: the reader may build the IR those need only when first asked
  /// for (PROFPACK_READ_DEFER_IR). Outputs are the same either way.
  public var deferIR = false
  /// The format the profile will be written in, if known: the library then decides itself
  /// what of the IR to defer (`profpack_read_options.output_format`).
  public var outputFormat: Format = .unknown
  /// Name the functions of a profile that holds only addresses (gperftools, DCPI) from its
  /// binaries as it is read, as go tool pprof does (PROFPACK_READ_SYMBOLIZE).
  public var symbolize = false
  /// With `symbolize`: directories to look for binaries in, before those of
  /// PROFPACK_BINARY_PATH (`profpack_read_options.binary_path`).
  public var binaryPath: [String] = []
  /// With `symbolize`: names from the binaries' symbol tables only, as perf script names them:
  /// no DWARF, so no source lines or inline frames (PROFPACK_READ_SYMBOL_TABLES_ONLY).
  public var symbolTablesOnly = false
  /// With `symbolize`: functions and inline frames but no source file or line looked up, for a
  /// profile only written as folded stacks or trace events, whose output is the same
  /// (PROFPACK_READ_NO_LINES).
  public var noLines = false
  public init(
    strict: Bool = false, maxPPKSize: UInt64? = nil, format: Format = .unknown,
    deferIR: Bool = false, outputFormat: Format = .unknown, symbolize: Bool = false,
    binaryPath: [String] = [], symbolTablesOnly: Bool = false, noLines: Bool = false
  ) {
    self.strict = strict
    self.maxPPKSize = maxPPKSize
    self.format = format
    self.deferIR = deferIR
    self.outputFormat = outputFormat
    self.symbolize = symbolize
    self.binaryPath = binaryPath
    self.symbolTablesOnly = symbolTablesOnly
    self.noLines = noLines
  }
  /// Runs `body` with the C options (valid only inside it: they point at C copies of
  /// `binaryPath`).
  func withC<R>(_ body: (UnsafePointer<profpack_read_options>) throws -> R) rethrows -> R {
    var o = profpack_read_options()
    profpack_read_options_init(&o)
    if strict { o.flags |= UInt32(PROFPACK_READ_STRICT) }
    if deferIR { o.flags |= UInt32(PROFPACK_READ_DEFER_IR) }
    if symbolize { o.flags |= UInt32(PROFPACK_READ_SYMBOLIZE) }
    if symbolTablesOnly { o.flags |= UInt32(PROFPACK_READ_SYMBOL_TABLES_ONLY) }
    if noLines { o.flags |= UInt32(PROFPACK_READ_NO_LINES) }
    if let maxPPKSize { o.max_ppk_size = maxPPKSize }
    o.format = format.c
    o.output_format = outputFormat.c
    return try withCStrings(binaryPath) { dirs in
      o.binary_path = dirs
      o.binary_path_count = binaryPath.count
      return try withUnsafePointer(to: &o) { try body($0) }
    }
  }
}

/// A keyed write parameter (profpack_write_param): each applies to one output format. Each
/// case's `rawValue` is its C constant's, read from the header (its doc comment gives it).
public enum WriteParam: Sendable, Hashable, CaseIterable, RawRepresentable {
  /// `PROFPACK_WRITE_PPK_LEVEL` (1). .ppk: zstd level, 1-22 (default 3).
  case ppkLevel
  /// `PROFPACK_WRITE_XRAY_MODE` (2). XRay: -1 the input's mode, 0 basic, 1 FDR.
  case xrayMode
  /// `PROFPACK_WRITE_XRAY_VERSION` (3). XRay: 0 the input's version, else the file version.
  case xrayVersion
  /// `PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES` (4). gperftools: 0 as read, 4 or 8 bytes per slot.
  case gperftoolsSlotBytes
  /// `PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER` (5). gperftools: 0 as read, 1 little-, 2 big-endian.
  case gperftoolsByteOrder
  /// `PROFPACK_WRITE_FOLDED_PROCESS` (6). Folded (perf): 0 comm, 1 -PID, 2 -PID/TID, 3 none.
  case foldedProcess
  /// `PROFPACK_WRITE_DCPI_IMAGE` (64). DCPI (a string): the image to write, by path or index.
  case dcpiImage

  /// The C constant's value.
  public var rawValue: Int32 { Int32(c.rawValue) }
  /// The parameter whose C constant is `rawValue`, or nil.
  public init?(rawValue: Int32) {
    guard let p = WriteParam.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
    self = p
  }

  var c: profpack_write_param {
    switch self {
    case .ppkLevel: return PROFPACK_WRITE_PPK_LEVEL
    case .xrayMode: return PROFPACK_WRITE_XRAY_MODE
    case .xrayVersion: return PROFPACK_WRITE_XRAY_VERSION
    case .gperftoolsSlotBytes: return PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES
    case .gperftoolsByteOrder: return PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER
    case .foldedProcess: return PROFPACK_WRITE_FOLDED_PROCESS
    case .dcpiImage: return PROFPACK_WRITE_DCPI_IMAGE
    }
  }

  /// The lowest and highest value and the default of an integer parameter.
  public func bounds() throws -> (lowest: Int64, highest: Int64, defaultValue: Int64) {
    var lo: Int64 = 0
    var hi: Int64 = 0
    var d: Int64 = 0
    try check { profpack_write_param_bounds(c, &lo, &hi, &d) }
    return (lo, hi, d)
  }
}

/// Write parameters by key; checked against their bounds when used.
public struct WriteOptions: Sendable {
  public var integers: [WriteParam: Int64] = [:]
  public var strings: [WriteParam: String] = [:]
  public init(_ integers: [WriteParam: Int64] = [:], strings: [WriteParam: String] = [:]) {
    self.integers = integers
    self.strings = strings
  }

  /// Runs `body` with C options holding these parameters.
  func withC<R>(_ body: (UnsafePointer<profpack_write_options>) throws -> R) throws -> R {
    var o = profpack_write_options()
    profpack_write_options_init(&o)
    for (key, value) in integers {
      try check { profpack_write_options_set(&o, key.c, value) }
    }
    let pairs = Array(strings)
    return try withCStrings(pairs.map { $0.value }) { values in
      for (i, pair) in pairs.enumerated() {
        try check { profpack_write_options_set_string(&o, pair.key.c, values![i]) }
      }
      return try withUnsafePointer(to: &o) { try body($0) }
    }
  }
}

/// How to symbolize (profpack_symbolize_options).
public struct SymbolizeOptions: Sendable {
  /// Directories searched for a mapping's binary by its base name.
  public var binaryPath: [String] = []
  /// For an XRay trace: the instrumented executable.
  public var binary: String? = nil
  /// A copy of /proc/kallsyms of the kernel the profile was recorded on, for kernel frames.
  public var kallsyms: String? = nil
  /// Names from the binaries' symbol tables only, without DWARF: no source lines or inline
  /// frames (`profpack_symbolize_options.symbol_tables_only`).
  public var symbolTablesOnly = false
  public init(
    binaryPath: [String] = [], binary: String? = nil, kallsyms: String? = nil,
    symbolTablesOnly: Bool = false
  ) {
    self.binaryPath = binaryPath
    self.binary = binary
    self.kallsyms = kallsyms
    self.symbolTablesOnly = symbolTablesOnly
  }
}

/// How to take a difference (profpack_diff_options).
public struct DiffOptions: Sendable {
  /// cg_diff's --mod-filename and --mod-funcname: each "s/REGEX/REPLACEMENT/".
  public var modFilename: [String] = []
  public var modFuncname: [String] = []
  /// Names of the two profiles, for messages.
  public var baseName: String? = nil
  public var currentName: String? = nil
  /// Event renames, each "FROM=TO".
  public var eventRenames: [String] = []
  public init(
    modFilename: [String] = [], modFuncname: [String] = [], baseName: String? = nil,
    currentName: String? = nil, eventRenames: [String] = []
  ) {
    self.modFilename = modFilename
    self.modFuncname = modFuncname
    self.baseName = baseName
    self.currentName = currentName
    self.eventRenames = eventRenames
  }
}
