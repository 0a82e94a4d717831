import CProfpack

/// A function of a profile; `id` indexes it in that profile (or view).
public struct Function: Sendable, Equatable {
  public let id: Int
  public let name: String
  public let file: String
  public let object: String
}

/// One event's costs of a `TopRow`: negative only in a difference.
public struct TopCost: Sendable, Equatable, Hashable {
  public let selfCost: Int64
  public let inclusiveCost: Int64
}

/// A function with its costs, as `profpack top` prints it (profpack_top_row).
public struct TopRow: Sendable, Equatable {
  public let function: Function
  /// Where the function starts, where the profile knows it; else 0.
  public let line: UInt64
  /// Completed calls, where the format counts them; else 0.
  public let calls: Int64
  /// One per event of `TopOptions.events` (every event by default), in that order.
  public let costs: [TopCost]
  public var id: Int { function.id }
  public var name: String { function.name }
}

/// What `top` ranks and which costs its rows carry (profpack_top_options).
public struct TopOptions: Sendable, Equatable {
  /// The events whose costs each row carries, as indices of `events()`; nil: every event.
  public var events: [Int]?
  /// The event ranked by, an index of `events()`.
  public var sortEvent: Int
  /// Rank by inclusive rather than self cost.
  public var inclusive: Bool
  /// Only this thread, an index of `threads()` (ids are then a view's of it); nil: every one.
  public var thread: Int?
  /// At most this many rows; nil: every function.
  public var limit: Int?
  public init(
    events: [Int]? = nil, sortEvent: Int = 0, inclusive: Bool = false, thread: Int? = nil,
    limit: Int? = nil
  ) {
    self.events = events
    self.sortEvent = sortEvent
    self.inclusive = inclusive
    self.thread = thread
    self.limit = limit
  }
}

/// One side of a call arc: the caller (in `callers`) or callee (in `callees`).
public struct Call: Sendable, Equatable {
  public let function: Int
  /// How often, where the format counts calls (0 otherwise); negative where a difference's is.
  public let calls: Int64
  /// The inclusive cost of those calls; negative where a difference's is.
  public let inclusive: Int64
}

/// A thread whose figures a view can show on their own (profpack_thread). Not `Thread`, which
/// would clash with Foundation's in every file that imports both.
/// An id the profile does not know (perf's -1) is `ProfileThread.unknownID`.
public struct ProfileThread: Sendable, Equatable, Hashable {
  public static let unknownID = UInt32.max
  public let pid: UInt32
  public let threadID: UInt32
}

/// The self cost of one source line (line 0: costs with no line information).
public struct LineCost: Sendable, Equatable {
  public let line: UInt64
  /// Negative where a difference's is.
  public let cost: Int64
}

extension Profile {
  /// Every function, in id order.
  public func functions() throws -> [Function] {
    var n = 0
    try check { profpack_profile_functions(handle, nil, 0, &n) }
    var buf = [profpack_function](repeating: profpack_function(), count: n)
    try check { profpack_profile_functions(handle, &buf, n, &n) }
    return buf.prefix(n).enumerated().map { i, f in
      Function(
        id: i, name: String(cString: f.name), file: String(cString: f.file),
        object: String(cString: f.object))
    }
  }

  /// Function `id`.
  public func function(_ id: Int) throws -> Function {
    var f = profpack_function()
    try check { profpack_profile_function(handle, id, &f) }
    return Function(
      id: id, name: String(cString: f.name), file: String(cString: f.file),
      object: String(cString: f.object))
  }

  /// The functions `pattern` names: those of that exact name; else, for FILE:FUNCTION, those
  /// named FUNCTION in that file; else those whose name the regular expression `pattern`
  /// matches (as pprof's -focus). None found is no error.
  public func findFunctions(_ pattern: String) throws -> [Function] {
    try find(pattern, flags: 0, capacity: nil)
  }

  /// Up to `count` functions whose names are nearest `name` (fewest edits, names containing it
  /// first): "did you mean" after `findFunctions` found none.
  public func similarFunctions(to name: String, count: Int = 5) throws -> [Function] {
    count > 0 ? try find(name, flags: UInt32(PROFPACK_FIND_SIMILAR), capacity: count) : []
  }

  private func find(_ pattern: String, flags: UInt32, capacity: Int?) throws -> [Function] {
    var n = 0
    var size = capacity ?? 0
    if capacity == nil {
      try check { profpack_profile_find_functions(handle, pattern, flags, nil, 0, &n) }
      size = n
    }
    if size == 0 { return [] }
    var ids = [Int](repeating: 0, count: size)
    try check { profpack_profile_find_functions(handle, pattern, flags, &ids, size, &n) }
    return try ids.prefix(min(n, size)).map { try function($0) }
  }

  /// The line at which function `id` starts, where the profile knows it; 0 otherwise.
  public func functionLine(_ id: Int) throws -> UInt64 {
    var line: UInt64 = 0
    try check { profpack_profile_function_line(handle, id, &line) }
    return line
  }

  /// The self and inclusive cost of function `id` for `event` (negative where a
  /// difference's are).
  public func cost(of id: Int, event: Int = 0) throws -> (selfCost: Int64, inclusive: Int64) {
    var s: UInt64 = 0
    var i: UInt64 = 0
    try check { profpack_profile_function_cost(handle, id, event, &s, &i) }
    let signed = try signedCosts()
    return (signedCost(s, signed: signed), signedCost(i, signed: signed))
  }

  /// Completed calls of function `id`, where the format counts them (negative where a
  /// difference's are); 0 otherwise.
  public func calls(of id: Int) throws -> Int64 {
    var n: UInt64 = 0
    try check { profpack_profile_function_calls(handle, id, &n) }
    return signedCost(n, signed: try signedCosts())
  }

  /// Event units per second when the events measure time (XRay ticks); 0 otherwise.
  public func unitsPerSecond() throws -> Double {
    var v = 0.0
    try check { profpack_profile_units_per_second(handle, &v) }
    return v
  }

  /// Units per second of one event where it measures time, else 0: each event's own where
  /// they differ (a V8 profile's time and samples; pprof sample types by unit), else the
  /// profile's (`unitsPerSecond()`).
  public func unitsPerSecond(event: Int) throws -> Double {
    var v = 0.0
    try check { profpack_profile_event_units_per_second(handle, event, &v) }
    return v
  }

  /// For a difference that records its base (a pprof difference, as `diff` makes one of
  /// stack profiles or `go tool pprof -proto -diff_base` saves one): the base's total of
  /// `event`, which pprof takes a difference's percentages of; 0 otherwise.
  public func eventBaseTotal(event: Int) throws -> UInt64 {
    var v: UInt64 = 0
    try check { profpack_profile_event_base_total(handle, event, &v) }
    return v
  }

  /// The profile's threads (XRay threads; Callgrind parts with a thread: line).
  public func threads() throws -> [ProfileThread] {
    var n = 0
    try check { profpack_profile_threads(handle, nil, 0, &n) }
    var buf = [profpack_thread](repeating: profpack_thread(), count: n)
    try check { profpack_profile_threads(handle, &buf, n, &n) }
    return buf.prefix(n).map { ProfileThread(pid: $0.pid, threadID: $0.thread_id) }
  }

  /// The most costly functions, most costly first (a difference: the largest change first),
  /// ties by name, with their costs of every event `options` asks for: profpack_profile_top.
  public func top(_ options: TopOptions = TopOptions()) throws -> [TopRow] {
    var o = profpack_top_options()
    profpack_top_options_init(&o)
    guard options.sortEvent >= 0, (options.limit ?? 0) >= 0, (options.thread ?? 0) >= 0,
      (options.events ?? []).allSatisfy({ $0 >= 0 })
    else {
      throw ProfpackError(code: .invalidArgument, message: "top: a negative index or limit")
    }
    if options.inclusive { o.flags |= UInt32(PROFPACK_TOP_INCLUSIVE) }
    o.sort_event = options.sortEvent
    if let thread = options.thread { o.thread = thread }
    if let limit = options.limit { o.limit = limit }
    let events = options.events ?? []
    var ne = events.count
    if options.events == nil {
      try check { profpack_profile_events(handle, nil, 0, &ne) }
    }
    return try events.withUnsafeBufferPointer { ev in
      if options.events != nil {
        o.events = ev.baseAddress
        o.event_count = ev.count
      }
      var n = 0
      try check { profpack_profile_top(handle, &o, nil, nil, 0, &n) }
      var rows = [profpack_top_row](repeating: profpack_top_row(), count: n)
      var costs = [profpack_top_cost](repeating: profpack_top_cost(), count: n * ne + 1)
      let capacity = n
      try rows.withUnsafeMutableBufferPointer { r in
        try costs.withUnsafeMutableBufferPointer { c in
          try check { profpack_profile_top(handle, &o, r.baseAddress, c.baseAddress, capacity, &n) }
        }
      }
      return rows.prefix(Swift.min(n, capacity)).enumerated().map { i, r in
        TopRow(
          function: Function(
            id: r.function, name: String(cString: r.name), file: String(cString: r.file),
            object: String(cString: r.object)),
          line: r.line, calls: r.calls,
          costs: costs[i * ne..<(i + 1) * ne].map {
            TopCost(selfCost: $0.`self`, inclusiveCost: $0.inclusive)
          })
      }
    }
  }

  /// The ids of the most costly functions, ranked as `top` ranks them (`sortEvent`,
  /// `inclusive`, `thread`, `limit`), without their costs: profpack_profile_top_functions.
  public func topFunctions(_ options: TopOptions = TopOptions()) throws -> [Int] {
    if let thread = options.thread {
      var o = options
      o.thread = nil
      return try view(thread: thread).topFunctions(o)
    }
    guard options.sortEvent >= 0, (options.limit ?? 0) >= 0 else {
      throw ProfpackError(code: .invalidArgument, message: "topFunctions: a negative index")
    }
    let flags = options.inclusive ? UInt32(PROFPACK_TOP_INCLUSIVE) : 0
    var n = 0
    try check { profpack_profile_top_functions(handle, options.sortEvent, flags, nil, 0, &n) }
    let capacity = Swift.min(n, options.limit ?? n)
    if capacity == 0 { return [] }
    var ids = [Int](repeating: 0, count: capacity)
    try check {
      profpack_profile_top_functions(handle, options.sortEvent, flags, &ids, capacity, &n)
    }
    return Array(ids.prefix(Swift.min(n, capacity)))
  }

  /// The `count` most costly functions by `event`, most costly first, each with that event's
  /// costs alone.
  public func top(event: Int = 0, count: Int, inclusive: Bool = false) throws -> [TopRow] {
    guard count > 0 else {
      throw ProfpackError(code: .invalidArgument, message: "top needs a count > 0")
    }
    return try top(
      TopOptions(events: [event], sortEvent: event, inclusive: inclusive, limit: count))
  }

  /// Per-line self cost of `event` in one source file, ascending by line.
  public func lineCosts(file: String, event: Int = 0) throws -> [LineCost] {
    var n = 0
    try check { profpack_profile_line_costs(handle, file, event, nil, 0, &n) }
    var buf = [profpack_line_cost](repeating: profpack_line_cost(), count: n)
    try check { profpack_profile_line_costs(handle, file, event, &buf, n, &n) }
    let signed = try signedCosts()
    return buf.prefix(n).map {
      LineCost(line: $0.line, cost: signedCost($0.cost, signed: signed))
    }
  }

  /// The source files that have line costs, one name per file (the names of one file in the
  /// profile given once), sorted: `lineCosts(file:)` of each gives that file's lines, and each
  /// line cost of the profile is in exactly one of them.
  public func sourceFiles() throws -> [String] {
    var n = 0
    try check { profpack_profile_source_files(handle, nil, 0, &n) }
    var buf = [UnsafePointer<CChar>?](repeating: nil, count: n)
    try check { profpack_profile_source_files(handle, &buf, n, &n) }
    return buf.prefix(n).map { $0.map { String(cString: $0) } ?? "" }
  }

  /// The functions that call `id`, most costly first.
  public func callers(of id: Int, event: Int = 0) throws -> [Call] {
    try arcs { profpack_profile_callers(handle, id, event, $0, $1, $2) }
  }

  /// The functions that `id` calls, most costly first.
  public func callees(of id: Int, event: Int = 0) throws -> [Call] {
    try arcs { profpack_profile_callees(handle, id, event, $0, $1, $2) }
  }

  private func arcs(
    _ fn: (UnsafeMutablePointer<profpack_call>?, Int, UnsafeMutablePointer<Int>) -> profpack_status
  ) throws -> [Call] {
    var n = 0
    try check { fn(nil, 0, &n) }
    var buf = [profpack_call](repeating: profpack_call(), count: n)
    try buf.withUnsafeMutableBufferPointer { b in try check { fn(b.baseAddress, b.count, &n) } }
    let signed = try signedCosts()
    return buf.prefix(n).map {
      Call(
        function: $0.function, calls: signedCost($0.calls, signed: signed),
        inclusive: signedCost($0.inclusive, signed: signed))
    }
  }
}
