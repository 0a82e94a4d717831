import CProfpack

/// One member of an archive, from its index (nothing decoded).
public struct ArchiveMember {
  public let id: UInt64
  public let format: String
  public let time: Int64
  public let labels: [String: String]
  public let storedBytes: UInt64
  public let irBytes: UInt64
}

/// A .ppka archive of many profiles (profpack_archive).
public final class Archive {
  let handle: OpaquePointer

  /// Opens the archive at `path`; `writable` for add and compact (creating it).
  public init(path: String, writable: Bool = false, level: Int32 = 19) throws {
    var o = profpack_archive_options()
    profpack_archive_options_init(&o)
    o.writable = writable ? 1 : 0
    o.level = level
    var out: OpaquePointer?
    try check { profpack_archive_open(path, &o, &out) }
    handle = out!
  }

  deinit { profpack_archive_close(handle) }

  /// Every member, from the index.
  public func members() throws -> [ArchiveMember] {
    var n = 0
    try check { profpack_archive_count(handle, &n) }
    var out: [ArchiveMember] = []
    for i in 0..<n {
      var m = profpack_archive_member()
      m.struct_size = UInt32(MemoryLayout<profpack_archive_member>.size)
      try check { profpack_archive_member_info(handle, i, &m) }
      var labels: [String: String] = [:]
      for l in 0..<m.label_count {
        var k: UnsafePointer<CChar>?
        var v: UnsafePointer<CChar>?
        try check { profpack_archive_member_label(handle, i, l, &k, &v) }
        labels[String(cString: k!)] = String(cString: v!)
      }
      out.append(
        ArchiveMember(
          id: m.id, format: String(cString: m.format), time: m.time, labels: labels,
          storedBytes: m.stored_bytes, irBytes: m.ir_bytes))
    }
    return out
  }

  /// Member `index` (of members()) as a profile.
  public func read(_ index: Int) throws -> Profile {
    var out: OpaquePointer?
    try check { profpack_archive_read(handle, index, &out) }
    return Profile(out!)
  }

  /// Adds `profiles` as one segment with `labels` ("key=value") and `time`, and commits it.
  public func add(_ profiles: [Profile], labels: [String] = [], time: Int64) throws {
    let handles: [OpaquePointer?] = profiles.map { $0.handle }
    try withCStrings(labels) { cl in
      try handles.withUnsafeBufferPointer { h in
        try check { profpack_archive_add(handle, h.baseAddress, h.count, cl, labels.count, time) }
      }
    }
    withExtendedLifetime(profiles) {}
  }

  /// Decodes and checks every member; how many were checked.
  public func verify() throws -> Int {
    var n = 0
    try check { profpack_archive_verify(handle, &n) }
    return n
  }

  /// Rewrites the archive as one segment with one dictionary.
  public func compact() throws {
    try check { profpack_archive_compact(handle) }
  }

  /// The merge of the members at `indices` (of members()), read one at a time.
  public func merge(_ indices: [Int]) throws -> Profile {
    var out: OpaquePointer?
    try indices.withUnsafeBufferPointer { ix in
      try check { profpack_archive_merge(handle, ix.baseAddress, ix.count, &out) }
    }
    return Profile(out!)
  }

  /// The merge of the members at `current` less the merge of those at `base`.
  public func diff(base: [Int], current: [Int]) throws -> Profile {
    var out: OpaquePointer?
    try base.withUnsafeBufferPointer { b in
      try current.withUnsafeBufferPointer { c in
        try check {
          profpack_archive_diff(handle, b.baseAddress, b.count, c.baseAddress, c.count, nil, &out)
        }
      }
    }
    return Profile(out!)
  }

  /// Member `index`'s self and inclusive cost of the functions named exactly `function`, for
  /// `event` (nil: its first), and how many there are.
  public func functionCost(_ index: Int, function: String, event: String? = nil) throws
    -> (selfCost: UInt64, inclusive: UInt64, matched: Int)
  {
    var s: UInt64 = 0
    var inc: UInt64 = 0
    var n = 0
    try withOptionalCString(event) { e in
      try check { profpack_archive_function_cost(handle, index, function, e, &s, &inc, &n) }
    }
    return (s, inc, n)
  }
}
