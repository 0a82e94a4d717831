import CProfpack
import Foundation
import XCTest

@testable import Profpack

final class ProfpackTests: XCTestCase {
  var data: String {
    ProcessInfo.processInfo.environment["PROFPACK_TEST_DATA"] ?? "../../tests/data"
  }

  // merge, diff and functionCost of an archive's members equal Merger.merge, Merger.diff and
  // callgrind_annotate's figures of the profiles they were made from.
  func testArchiveQueries() throws {
    let ps = try ["01", "02", "03"].map {
      try Profile(path: data + "/callgrind-threads/callgrind.out.workload-" + $0)
    }
    let path = NSTemporaryDirectory() + "/profpack-archive-\(getpid()).ppka"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let a = try Archive(path: path, writable: true)
    try a.add(ps, labels: ["k=v"], time: 5)
    let want = try Profile.merge(Array(ps[0..<2]))
    XCTAssertTrue(try a.merge([0, 1]).equal(to: want))
    let wantDiff = try Profile.diff(base: want, current: try Profile.merge([ps[2]]))
    XCTAssertTrue(try a.diff(base: [0, 1], current: [2]).equal(to: wantDiff))
    for (i, w) in [UInt64(0), 6_305_184, 6_658_992].enumerated() {
      let c = try a.functionCost(i, function: "cmp", event: "Ir")
      XCTAssertEqual(c.selfCost, w)
      XCTAssertEqual(c.inclusive, w)
      XCTAssertEqual(c.matched, w > 0 ? 1 : 0)
    }
    XCTAssertThrowsError(try a.merge([]))
  }

  func testRoundTripAndQueries() throws {
    let path = data + "/cachegrind/cachegrind.workload.out"
    let p = try Profile(path: path)
    XCTAssertEqual(p.format, .cachegrind)
    let events = try p.events()
    XCTAssertEqual(events.count, 13)
    XCTAssertEqual(events[0].name, "Ir")
    XCTAssertEqual(events[0].total, 88_804_011)
    let ppk = try p.data(as: .ppk, options: WriteOptions([.ppkLevel: 19]))
    XCTAssertEqual(Format.detect(ppk), .ppk)
    let q = try Profile(data: ppk)
    XCTAssertTrue(try p.equal(to: q))
    let back = try q.data(as: .cachegrind)
    XCTAssertEqual(back, try Data(contentsOf: URL(fileURLWithPath: path)))
    let top = try q.top(event: 0, count: 2)
    XCTAssertEqual(top.first?.name, "msort_with_tmp.part.0")
    XCTAssertEqual(top.first?.costs.map(\.selfCost), [34_023_858])
    XCTAssertEqual(try q.eventIndex("Dr"), 3)
    let lines = try q.lineCosts(file: "/elsewhere/workload.c")
    XCTAssertTrue(lines.contains { $0.line == 7 && $0.cost == 12_964_176 })
    // Each line cost in one source file: their lines add up to the first event's total.
    let files = try q.sourceFiles()
    XCTAssertEqual(files, files.sorted())
    let sum = try files.reduce(Int64(0)) { s, f in
      s + (try q.lineCosts(file: f).reduce(Int64(0)) { $0 + $1.cost })
    }
    XCTAssertEqual(sum, try q.events()[0].total)
  }

  func testErrors() throws {
    XCTAssertThrowsError(try Profile(data: Array("events: A\nfl=f.c\n3 4\n".utf8))) { error in
      let e = error as! ProfpackError
      XCTAssertEqual(e.code, .malformed)
      XCTAssertEqual(e.code.description, "malformed input")
      XCTAssertEqual(e.line, 3)
      XCTAssertEqual(e.offset, 17)
      XCTAssertEqual(e.format, "cachegrind")
    }
    XCTAssertThrowsError(try Profile(path: "/nonexistent/file")) { error in
      XCTAssertEqual((error as! ProfpackError).code, .io)
    }
    let empty = FileManager.default.temporaryDirectory.appendingPathComponent("profpack-empty.out")
    XCTAssertTrue(FileManager.default.createFile(atPath: empty.path, contents: Data()))
    defer { try? FileManager.default.removeItem(at: empty) }
    XCTAssertThrowsError(try Profile(path: empty.path)) { error in
      XCTAssertTrue((error as! ProfpackError).message.hasPrefix(empty.path + ": "))
    }
    XCTAssertEqual(Format(name: "xray"), .xray)
    XCTAssertEqual(Format(path: "out/callgrind.out.42"), .callgrind)
    XCTAssertEqual(Format(path: "sum.out"), .unknown)
    for f in Format.allCases where f != .unknown { XCTAssertEqual(Format(name: f.description), f) }
    XCTAssertFalse(profpackVersion.isEmpty)
    XCTAssertGreaterThan(profpackVersionNumber, 0)
  }

  /// Every figure the CLI prints with --json, from the binding, for a profile of each format.
  func testEveryFormatAgainstCLI() throws {
    guard let cli = ProcessInfo.processInfo.environment["PROFPACK_CLI"] else {
      throw XCTSkip("PROFPACK_CLI not set")
    }
    func json(_ args: [String]) throws -> [String: Any] {
      let proc = Process()
      proc.executableURL = URL(fileURLWithPath: cli)
      proc.arguments = args + ["--json"]
      let pipe = Pipe()
      proc.standardOutput = pipe
      try proc.run()
      let out = pipe.fileHandleForReading.readDataToEndOfFile()
      proc.waitUntilExit()
      return try JSONSerialization.jsonObject(with: out) as! [String: Any]
    }
    func u64(_ v: Any?) -> UInt64 { (v as! NSNumber).uint64Value }
    func i64(_ v: Any?) -> Int64 { (v as! NSNumber).int64Value }
    for rel in [
      "callgrind/callgrind.workload.threads-combined.out", "cachegrind/cachegrind.workload.out",
      "gperftools/workload.64le.prof", "xray/fdr-v5-mt-manybuf.xray", "dcpi/medium.dcpi",
    ] {
      let path = data + "/" + rel
      let p = try Profile(path: path)
      let info = try json(["info", path])
      let i = try p.info()
      XCTAssertEqual(i.format.description, info["format"] as? String, rel)
      XCTAssertEqual(i.records, u64(info["records"]), rel)
      XCTAssertEqual(i.functions, u64(info["functions"]), rel)
      XCTAssertEqual(i.irBytes, u64(info["ir_bytes"]), rel)
      let events = info["events"] as! [[String: Any]]
      XCTAssertEqual(try p.events().map { $0.total }, events.map { i64($0["total"]) }, rel)
      XCTAssertEqual(try p.threads().count, (info["threads"] as! [Any]).count, rel)
      let top = (try json(["top", path, "-n", "10"])["functions"] as! [[String: Any]])
      let mine = try p.top(count: 10)
      XCTAssertEqual(mine.map { $0.id }, top.map { ($0["id"] as! NSNumber).intValue }, rel)
      XCTAssertEqual(mine.map { $0.costs[0].selfCost }, top.map { i64($0["self"]) }, rel)
      XCTAssertEqual(mine.map { $0.costs[0].inclusiveCost }, top.map { i64($0["inclusive"]) }, rel)
      XCTAssertEqual(try mine.map { try p.calls(of: $0.id) }, top.map { i64($0["calls"]) }, rel)
      XCTAssertEqual(mine.map { $0.calls }, top.map { i64($0["calls"]) }, rel)
      XCTAssertEqual(
        try mine.map { try p.cost(of: $0.id).selfCost }, top.map { i64($0["self"]) }, rel)
      XCTAssertEqual(mine.map { $0.line }, top.map { u64($0["line"]) }, rel)
      XCTAssertEqual(
        try mine.map { try p.functionLine($0.id) }, top.map { u64($0["line"]) }, rel)
      guard let first = mine.first else { continue }
      let calls = try json(["calls", path, first.name])["matches"] as! [[String: Any]]
      let match = calls.first { ($0["id"] as! NSNumber).intValue == first.id }!
      let callers = match["callers"] as! [[String: Any]]
      let callees = match["callees"] as! [[String: Any]]
      XCTAssertEqual(
        try p.callers(of: first.id).map { $0.inclusive }, callers.map { i64($0["inclusive"]) }, rel)
      XCTAssertEqual(
        try p.callees(of: first.id).map { $0.calls }, callees.map { i64($0["calls"]) }, rel)
      XCTAssertEqual(try p.functions()[first.id], first.function, rel)
      XCTAssertEqual(try p.data(as: .pprof).prefix(2), Data([0x1f, 0x8b]), rel)
    }
  }

  /// go-cpu.pb.gz's two workers (tests/data/pprof/goprog) split its 27 samples 13 and 14, as
  /// go tool pprof -tagfocus=worker=hash (130ms of 270ms) shows.
  func testViewTags() throws {
    let p = try Profile(path: data + "/pprof/go-cpu.pb.gz")
    let all = try p.events()[0].total
    XCTAssertEqual(try p.view(tags: ["worker=^hash$"]).events()[0].total, 13)
    XCTAssertEqual(try p.view(tags: ["worker=squares"]).events()[0].total, 14)
    XCTAssertEqual(try p.view(tags: ["worker=a"]).events()[0].total, all)
    XCTAssertEqual(try p.view(tags: ["worker=hash", "worker=squares"]).events()[0].total, 0)
    XCTAssertThrowsError(try p.view(tags: ["worker"])) { error in
      XCTAssertEqual((error as! ProfpackError).code, .invalidArgument)
    }
    let g = try Profile(path: data + "/gperftools/workload.64le.prof")
    XCTAssertThrowsError(try g.view(tags: ["k=v"])) { error in
      XCTAssertEqual((error as! ProfpackError).code, .unsupported)
    }
  }

  /// Naming on read: hot.prof's addresses named from the binary in a `binaryPath` directory
  /// (read from memory, so the binary's modification time is not compared).
  func testReadSymbolize() throws {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: data + "/symbolize/hot.prof"))
    let empty = FileManager.default.temporaryDirectory.appendingPathComponent("profpack-no-bins")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    setenv("PROFPACK_BINARY_PATH", empty.path, 1)
    defer { unsetenv("PROFPACK_BINARY_PATH") }
    func names(_ o: ReadOptions) throws -> Set<String> {
      Set(try Profile(data: bytes, options: o).functions().map(\.name))
    }
    let named = try names(ReadOptions(symbolize: true, binaryPath: [data + "/symbolize"]))
    XCTAssertTrue(named.contains("mix") && named.contains("fold"), "\(named)")
    XCTAssertFalse(try names(ReadOptions(binaryPath: [data + "/symbolize"])).contains("mix"))
    XCTAssertFalse(try names(ReadOptions(symbolize: true, binaryPath: [empty.path])).contains("mix"))
    // From the symbol table only: mix without the source file DWARF gives.
    func mixFile(_ o: ReadOptions) throws -> String? {
      try Profile(data: bytes, options: o).functions().first { $0.name == "mix" }?.file
    }
    XCTAssertTrue(
      try mixFile(ReadOptions(symbolize: true, binaryPath: [data + "/symbolize"]))?.hasSuffix(
        "/hot.c") ?? false)
    XCTAssertEqual(
      try mixFile(
        ReadOptions(symbolize: true, binaryPath: [data + "/symbolize"], symbolTablesOnly: true)),
      "")
    // Without lines: DWARF's functions (the inlined fold among them), no source file.
    let noLines = ReadOptions(symbolize: true, binaryPath: [data + "/symbolize"], noLines: true)
    XCTAssertEqual(try mixFile(noLines), "")
    XCTAssertTrue(try names(noLines).contains("fold"))
  }

  /// Every format is described, and each of its file names maps back to it.
  func testFormatInfo() throws {
    let all = FormatInfo.all()
    XCTAssertEqual(all.count, Format.allCases.count - 1)
    for f in all {
      XCTAssertEqual(f.name, f.format.description)
      XCTAssertTrue(f.readable && !f.about.isEmpty)
      XCTAssertEqual(f.writable, ![.cpuprofile, .perf, .perfScript].contains(f.format), f.name)
      XCTAssertEqual(f.writesLines, f.writable && ![.folded, .traceEvent].contains(f.format), f.name)
      for e in f.endings { XCTAssertEqual(Format(path: "dir/x" + e), f.format, e) }
      for n in f.fileNames {
        XCTAssertEqual(Format(path: "dir/" + n.replacingOccurrences(of: "*", with: "1")), f.format)
      }
    }
    XCTAssertThrowsError(try Format.unknown.info())
  }

  func testCpuprofileFormat() throws {
    XCTAssertEqual(Format(name: "cpuprofile"), .cpuprofile)
    XCTAssertEqual(try Profile(path: data + "/cpuprofile/work.cpuprofile").format, .cpuprofile)
  }

  func testPerfFormat() throws {
    XCTAssertEqual(Format(name: "perf"), .perf)
    XCTAssertEqual(Format(name: "perf-script"), .perfScript)
    XCTAssertEqual(try Profile(path: data + "/perf/spin.data").format, .perf)
  }

  func testViewsSymbolizeMergeDiff() throws {
    let mt = try Profile(path: data + "/xray/fdr-v5-mt-manybuf.xray")
    let all = try mt.events()[0].total
    var sum: Int64 = 0
    for t in 0..<(try mt.threads().count) { sum += try mt.view(thread: t).events()[0].total }
    XCTAssertEqual(sum, all)
    XCTAssertThrowsError(try mt.view(thread: 99))
    let st = try Profile(path: data + "/xray/fdr-v5-st.xray")
    XCTAssertEqual(try st.view(binary: data + "/xray/st.bin").top(count: 1).first?.name, "fib(int)")
    XCTAssertEqual(try st.unitsPerSecond(), 1e9)
    XCTAssertEqual(try st.unitsPerSecond(event: 0), 1e9)
    // A V8 profile's events: time (microseconds) and a sample count, which is not time.
    let v8 = try Profile(path: data + "/cpuprofile/work.cpuprofile")
    XCTAssertEqual(try v8.unitsPerSecond(event: 0), 1e6)
    XCTAssertEqual(try v8.unitsPerSecond(event: 1), 0)
    XCTAssertThrowsError(try v8.unitsPerSecond(event: 2))

    let hot = try Profile(path: data + "/symbolize/hot.prof")
    let named = try hot.symbolize(SymbolizeOptions(binaryPath: [data + "/symbolize"]))
    XCTAssertTrue(try named.functions().contains { $0.name == "mix" })
    XCTAssertFalse(try named.lineCosts(file: "hot.c").isEmpty)
    XCTAssertThrowsError(try st.symbolize())
    _ = try hot.warnings()
    // A perf recording's kernel frames, named from the recorded kernel's kallsyms.
    let perf = try Profile(path: data + "/perf/spin.data")
    let kernel = try perf.symbolize(
      SymbolizeOptions(binaryPath: [data + "/perf"], kallsyms: data + "/perf/kallsyms.txt"))
    // Some function of the kernel's object has a name of the excerpt (not its address).
    let table = try String(contentsOfFile: data + "/perf/kallsyms.txt", encoding: .utf8)
    let names = Set(table.split(separator: "\n").compactMap { line -> String? in
      let fields = line.split(separator: " ")
      return fields.count >= 3 ? String(fields[2]) : nil
    })
    XCTAssertTrue(
      try kernel.functions().contains {
        $0.object.hasPrefix("[kernel.kallsyms]") && names.contains($0.name)
      })

    let a = try Profile(path: data + "/merge/cachegrind.workload.run1.out")
    let b = try Profile(path: data + "/merge/cachegrind.workload.run2.out")
    let m = try Profile.merge([a, b], names: ["run1", "run2"])
    XCTAssertEqual(try m.events()[0].total, try a.events()[0].total + b.events()[0].total)
    let merger = try Merger()
    try merger.renameEvent("Ir", to: "Ir")
    try merger.add(a, name: "run1")
    try merger.add(b)
    XCTAssertTrue(try merger.finish().equal(to: m))
    let d = try Profile.diff(
      base: a, current: b, options: DiffOptions(modFilename: ["s/x/x/"]))
    XCTAssertTrue(try d.info().signedCosts)
    let parts = try Profile(
      paths: ["01", "02", "03"].map { data + "/callgrind-threads/callgrind.out.workload-" + $0 })
    XCTAssertEqual(try parts.threads().count, 3)
    let cg = try Profile(path: data + "/callgrind/callgrind.workload.out")
    XCTAssertEqual(try cg.findFunctions("workload.c:cmp").map(\.name), ["cmp"])
    XCTAssertEqual(try cg.findFunctions("^msort_with_tmp").count, 2)
    XCTAssertEqual(try cg.similarFunctions(to: "cpm", count: 3).first?.name, "cmp")
    XCTAssertFalse(try d.info().capabilities.contains(.timeline))
    XCTAssertEqual(try d.events()[0].total, try b.events()[0].total - a.events()[0].total)
  }

  func testWriteOptions() throws {
    let b = try WriteParam.ppkLevel.bounds()
    XCTAssertEqual(b.lowest, 1)
    XCTAssertEqual(b.highest, 22)
    XCTAssertEqual(b.defaultValue, 3)
    XCTAssertThrowsError(try WriteParam.dcpiImage.bounds())
    let st = try Profile(path: data + "/xray/fdr-v5-st.xray")
    XCTAssertThrowsError(try st.data(as: .ppk, options: WriteOptions([.ppkLevel: 23])))
    XCTAssertEqual(try st.data(as: .xray, options: WriteOptions([.xrayVersion: 3])).first, 3)
    let dcpi = try Profile(path: data + "/dcpi/small.dcpi")
    XCTAssertNoThrow(try dcpi.data(as: .dcpi, options: WriteOptions(strings: [.dcpiImage: "0"])))
    let out = NSTemporaryDirectory() + "/profpack-swift-\(getpid()).pb.gz"
    try st.write(to: out, as: .pprof)
    try? FileManager.default.removeItem(atPath: out)
    // deferIR moves work, never changes an output.
    let path = data + "/gperftools/workload.64le.prof"
    let eager = try Profile(path: path)
    let lazy = try Profile(path: path, options: ReadOptions(deferIR: true))
    for format in [Format.pprof, .ppk, .gperftools] {
      let a = try lazy.data(as: format)
      XCTAssertFalse(a.isEmpty)
      XCTAssertEqual(a, try eager.data(as: format))
    }
  }

  /// One profile queried from many tasks at once (it is Sendable).
  func testConcurrentQueries() async throws {
    let p = try Profile(path: data + "/callgrind/callgrind.workload.out")
    let tops = try await withThrowingTaskGroup(of: Int64.self) { group in
      for _ in 0..<8 { group.addTask { try p.top(count: 3)[0].costs[0].selfCost } }
      var all: [Int64] = []
      for try await t in group { all.append(t) }
      return all
    }
    XCTAssertEqual(Set(tops).count, 1)
  }

  /// Every case's raw value is its C constant's, whatever the order of declaration.
  func testRawValuesAreTheCConstants() {
    let formats: [(Format, profpack_format)] = [
      (.unknown, PROFPACK_FORMAT_UNKNOWN), (.ppk, PROFPACK_FORMAT_PPK),
      (.callgrind, PROFPACK_FORMAT_CALLGRIND), (.cachegrind, PROFPACK_FORMAT_CACHEGRIND),
      (.gperftools, PROFPACK_FORMAT_GPERFTOOLS), (.xray, PROFPACK_FORMAT_XRAY),
      (.dcpi, PROFPACK_FORMAT_DCPI), (.folded, PROFPACK_FORMAT_FOLDED),
      (.traceEvent, PROFPACK_FORMAT_TRACE_EVENT), (.pprof, PROFPACK_FORMAT_PPROF),
      (.cpuprofile, PROFPACK_FORMAT_CPUPROFILE), (.perf, PROFPACK_FORMAT_PERF),
      (.perfScript, PROFPACK_FORMAT_PERF_SCRIPT),
    ]
    XCTAssertEqual(formats.count, Format.allCases.count)
    for (f, c) in formats {
      XCTAssertEqual(f.rawValue, Int32(c.rawValue), "\(f)")
      XCTAssertEqual(Format(rawValue: Int32(c.rawValue)), f)
      XCTAssertEqual(f.description, String(cString: profpack_format_name(c)))
    }
    XCTAssertNil(Format(rawValue: 99))
    let codes: [(ProfpackError.Code, profpack_status)] = [
      (.invalidArgument, PROFPACK_ERROR_INVALID_ARGUMENT), (.io, PROFPACK_ERROR_IO),
      (.malformed, PROFPACK_ERROR_MALFORMED), (.unsupported, PROFPACK_ERROR_UNSUPPORTED),
      (.limit, PROFPACK_ERROR_LIMIT), (.noMemory, PROFPACK_ERROR_NO_MEMORY),
      (.internal, PROFPACK_ERROR_INTERNAL),
    ]
    XCTAssertEqual(codes.count, ProfpackError.Code.allCases.count)
    for (code, c) in codes {
      XCTAssertEqual(code.rawValue, Int32(c.rawValue), "\(code)")
      XCTAssertEqual(ProfpackError.Code(rawValue: Int32(c.rawValue)), code)
    }
    let params: [(WriteParam, profpack_write_param)] = [
      (.ppkLevel, PROFPACK_WRITE_PPK_LEVEL), (.xrayMode, PROFPACK_WRITE_XRAY_MODE),
      (.xrayVersion, PROFPACK_WRITE_XRAY_VERSION),
      (.gperftoolsSlotBytes, PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES),
      (.foldedProcess, PROFPACK_WRITE_FOLDED_PROCESS),
      (.gperftoolsByteOrder, PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER),
      (.dcpiImage, PROFPACK_WRITE_DCPI_IMAGE),
    ]
    XCTAssertEqual(params.count, WriteParam.allCases.count)
    for (p, c) in params {
      XCTAssertEqual(p.rawValue, Int32(c.rawValue), "\(p)")
      XCTAssertEqual(WriteParam(rawValue: Int32(c.rawValue)), p)
    }
    // The values the doc comments give.
    XCTAssertEqual(Format.pprof.rawValue, 9)
    XCTAssertEqual(WriteParam.dcpiImage.rawValue, 64)
    XCTAssertEqual(ProfpackError.Code.internal.rawValue, 7)
    XCTAssertEqual(Profile.Capabilities.names.rawValue, 0x80)
  }

  /// top's options: several events in one call, any ranking, one thread, a difference's
  /// negative costs; each as the CLI's `top --tsv` prints it.
  func testTopOptions() throws {
    guard let cli = ProcessInfo.processInfo.environment["PROFPACK_CLI"] else {
      throw XCTSkip("PROFPACK_CLI not set")
    }
    func tsv(_ args: [String]) throws -> [[String]] {
      let proc = Process()
      proc.executableURL = URL(fileURLWithPath: cli)
      proc.arguments = ["top"] + args + ["--tsv"]
      let pipe = Pipe()
      proc.standardOutput = pipe
      try proc.run()
      let out = pipe.fileHandleForReading.readDataToEndOfFile()
      proc.waitUntilExit()
      return String(decoding: out, as: UTF8.self).split(separator: "\n").map { line in
        let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return [c[0], c[1], c[3], c[4], c[5]]
      }
    }
    func rows(_ top: [TopRow], _ k: Int) -> [[String]] {
      top.map {
        [
          String($0.costs[k].selfCost), String($0.costs[k].inclusiveCost), $0.function.file,
          $0.name, $0.function.object,
        ]
      }
    }
    let cg = data + "/cachegrind/cachegrind.workload.out"
    let p = try Profile(path: cg)
    let byDr = try p.top(TopOptions(events: [5, 3], sortEvent: 3, limit: 8))
    XCTAssertEqual(rows(byDr, 1), try tsv([cg, "-n", "8", "--event", "Dr"]))
    XCTAssertEqual(try p.topFunctions(TopOptions(sortEvent: 3, limit: 8)), byDr.map(\.id))
    let incl = try p.top(TopOptions(events: [5, 3], sortEvent: 5, inclusive: true, limit: 8))
    XCTAssertEqual(rows(incl, 0), try tsv([cg, "-n", "8", "--event", "DLmr", "--inclusive"]))
    let all = try p.top()
    XCTAssertEqual(all.count, try p.functions().count)
    XCTAssertEqual(all.first?.costs.count, 13)
    XCTAssertThrowsError(try p.top(TopOptions(sortEvent: 13)))
    let mt = data + "/xray/fdr-v5-mt-manybuf.xray"
    let x = try Profile(path: mt)
    for t in 0..<4 {
      XCTAssertEqual(
        rows(try x.top(TopOptions(thread: t, limit: 6)), 0),
        try tsv([mt, "-n", "6", "--thread", String(t)]))
      XCTAssertEqual(
        try x.topFunctions(TopOptions(thread: t, limit: 6)),
        try x.top(TopOptions(thread: t, limit: 6)).map(\.id))
    }
    let a = try Profile(path: data + "/merge/cachegrind.workload.run1.out")
    let b = try Profile(path: data + "/merge/cachegrind.workload.run2.out")
    let d = try Profile.diff(base: b, current: a)  // run 1 costs less: negative costs
    let out = NSTemporaryDirectory() + "/profpack-swift-diff-\(getpid()).cachegrind"
    try d.write(to: out, as: .cachegrind)
    defer { try? FileManager.default.removeItem(atPath: out) }
    let diff = try d.top(TopOptions(limit: 20))
    XCTAssertEqual(rows(diff, 0), try tsv([out, "-n", "20"]))
    XCTAssertTrue(diff.contains { $0.costs[0].selfCost < 0 })
    // Every query's costs are signed as top's.
    let first = diff.first { $0.costs[0].selfCost < 0 }!
    XCTAssertEqual(try d.cost(of: first.id).selfCost, first.costs[0].selfCost)
    XCTAssertLessThan(try d.events()[0].total, 0)
  }

  /// The value each case's doc comment gives (what the symbol graph shows) is its raw value.
  func testDocCommentsGiveTheValues() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources/Profpack")
    var checked = 0
    for file in ["Format.swift", "Error.swift", "Options.swift", "Profile.swift"] {
      let lines = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      for (i, line) in lines.enumerated() where i + 1 < lines.count {
        // "/// `PROFPACK_…` (VALUE)…" above "case NAME" or "public static let NAME".
        guard let open = line.range(of: "` ("), line.contains("/// `PROFPACK_"),
          let close = line[open.upperBound...].firstIndex(of: ")")
        else { continue }
        let text = String(line[open.upperBound..<close])
        let value = text.hasPrefix("0x") ? Int64(text.dropFirst(2), radix: 16) : Int64(text)
        let decl = lines[i + 1].trimmingCharacters(in: .whitespaces)
        let name = decl.hasPrefix("case ")
          ? String(decl.dropFirst(5)).replacingOccurrences(of: "`", with: "")
          : String(decl.split(separator: " ")[3])
        var raw: Int64?
        switch file {
        case "Format.swift":
          let formats: [String: Format] = [
            "unknown": .unknown, "ppk": .ppk, "callgrind": .callgrind, "cachegrind": .cachegrind,
            "gperftools": .gperftools, "xray": .xray, "dcpi": .dcpi, "folded": .folded,
            "traceEvent": .traceEvent, "pprof": .pprof, "cpuprofile": .cpuprofile, "perf": .perf,
            "perfScript": .perfScript,
          ]
          raw = formats[name].map { Int64($0.rawValue) }
        case "Error.swift":
          let codes: [String: ProfpackError.Code] = [
            "invalidArgument": .invalidArgument, "io": .io, "malformed": .malformed,
            "unsupported": .unsupported, "limit": .limit, "noMemory": .noMemory,
            "internal": .internal,
          ]
          raw = codes[name].map { Int64($0.rawValue) }
        case "Options.swift": raw = WriteParam.allCases.first { "\($0)" == name }
            .map { Int64($0.rawValue) }
        default:
          let caps: [String: Profile.Capabilities] = [
            "callArcs": .callArcs, "callCounts": .callCounts, "lines": .lines,
            "addresses": .addresses, "stacks": .stacks, "timeline": .timeline,
            "threads": .threads, "names": .names,
          ]
          raw = caps[name].map { Int64($0.rawValue) }
        }
        XCTAssertNotNil(value, line)
        XCTAssertEqual(raw, value, "\(file): \(name): \(line)")
        checked += 1
      }
    }
    XCTAssertEqual(checked, 13 + 7 + 7 + 8)
  }
}
