import CProfpack

extension Profile {
  /// The sum of `profiles`, as cg_merge and `go tool pprof -proto A B` compute it. `names`
  /// (one per profile, or empty) names the inputs in errors.
  public static func merge(_ profiles: [Profile], names: [String] = []) throws -> Profile {
    guard !profiles.isEmpty else {
      throw ProfpackError(code: .invalidArgument, message: "merge needs at least one profile")
    }
    guard names.isEmpty || names.count == profiles.count else {
      throw ProfpackError(code: .invalidArgument, message: "merge needs one name per profile")
    }
    let handles: [OpaquePointer?] = profiles.map { $0.handle }
    var out: OpaquePointer?
    try withCStrings(names) { cn in
      try handles.withUnsafeBufferPointer { h in
        try check { profpack_merge(h.baseAddress, cn, h.count, &out) }
      }
    }
    return withExtendedLifetime(profiles) { Profile(out!) }
  }

  /// `current` - `base` with signed costs, as cg_diff computes it.
  public static func diff(
    base: Profile, current: Profile, options: DiffOptions = DiffOptions()
  ) throws -> Profile {
    var o = profpack_diff_options()
    profpack_diff_options_init(&o)
    var out: OpaquePointer?
    try withCStrings(options.modFilename) { files in
      try withCStrings(options.modFuncname) { funcs in
        try withCStrings(options.eventRenames) { renames in
          try withOptionalCString(options.baseName) { bn in
            try withOptionalCString(options.currentName) { cn in
              o.mod_filename = files
              o.mod_filename_count = options.modFilename.count
              o.mod_funcname = funcs
              o.mod_funcname_count = options.modFuncname.count
              o.event_renames = renames
              o.event_renames_count = options.eventRenames.count
              o.base_name = bn
              o.current_name = cn
              try check { profpack_diff(base.handle, current.handle, &o, &out) }
            }
          }
        }
      }
    }
    return Profile(out!)
  }
}

/// Merges profiles one at a time (profpack_merger), so that memory is bounded by the result
/// rather than the sum of the inputs. Not Sendable: use it from one task.
public final class Merger {
  let handle: OpaquePointer

  public init() throws {
    var m: OpaquePointer?
    try check { profpack_merger_new(&m) }
    handle = m!
  }
  deinit { profpack_merger_free(handle) }

  /// Before the first `add`: every input's event `from` counts as event `to`.
  public func renameEvent(_ from: String, to: String) throws {
    try check { profpack_merger_rename_event(handle, from, to) }
  }

  /// Adds a profile (which may be released right after); `name` names it in errors.
  public func add(_ profile: Profile, name: String? = nil) throws {
    try withOptionalCString(name) { n in
      try check { profpack_merger_add(handle, profile.handle, n) }
    }
  }

  /// The merged profile; at most once.
  public func finish() throws -> Profile {
    var out: OpaquePointer?
    try check { profpack_merger_finish(handle, &out) }
    return Profile(out!)
  }
}
