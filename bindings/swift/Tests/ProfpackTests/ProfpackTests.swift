import Foundation
import XCTest

@testable import Profpack

final class ProfpackTests: XCTestCase {
  var data: String {
    ProcessInfo.processInfo.environment["PROFPACK_TEST_DATA"] ?? "../../tests/data"
  }

  func testRoundTripAndQueries() throws {
    let path = data + "/cachegrind/cachegrind.workload.out"
    let p = try Profile(path: path)
    XCTAssertEqual(p.format, .cachegrind)
    let events = try p.events()
    XCTAssertEqual(events.count, 13)
    XCTAssertEqual(events[0].name, "Ir")
    XCTAssertEqual(events[0].total, 88_804_011)
    let ppk = try p.bytes(as: .ppk, level: 19)
    XCTAssertEqual(Format.detect(ppk), .ppk)
    let q = try Profile(bytes: ppk)
    XCTAssertTrue(try p.equal(to: q))
    let back = try q.bytes(as: .cachegrind)
    XCTAssertEqual(back, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    let top = try q.top(event: 0, count: 2)
    XCTAssertEqual(top.first?.name, "msort_with_tmp.part.0")
    XCTAssertEqual(top.first?.selfCost, 34_023_858)
    XCTAssertEqual(try q.eventIndex("Dr"), 3)
    let lines = try q.lineCosts(file: "/elsewhere/workload.c")
    XCTAssertTrue(lines.contains { $0.line == 7 && $0.cost == 12_964_176 })
  }

  func testErrors() throws {
    XCTAssertThrowsError(try Profile(bytes: Array("events: A\nfl=f.c\n3 4\n".utf8))) { error in
      let e = error as! ProfpackError
      XCTAssertEqual(e.code, .malformed)
      XCTAssertEqual(e.line, 3)
      XCTAssertEqual(e.offset, 17)
      XCTAssertEqual(e.format, "cachegrind")
    }
    XCTAssertThrowsError(try Profile(path: "/nonexistent/file")) { error in
      XCTAssertEqual((error as! ProfpackError).code, .io)
    }
    XCTAssertEqual(Format(name: "xray"), .xray)
    XCTAssertEqual(Format.xray.description, "xray")
    XCTAssertFalse(profpackVersion.isEmpty)
  }
}
