// A file that imports Foundation and Profpack, as most programs do: `Thread` is Foundation's,
// and the profile's threads are `ProfileThread`, so neither name is ambiguous.
import Foundation
import Profpack
import XCTest

final class FoundationThreadTests: XCTestCase {
  func testThreadIsFoundationsAndProfileThreadIsProfpacks() throws {
    let data = ProcessInfo.processInfo.environment["PROFPACK_TEST_DATA"] ?? "../../tests/data"
    let p = try Profile(path: data + "/xray/fdr-v5-mt-manybuf.xray")
    let threads: [ProfileThread] = try p.threads()
    XCTAssertEqual(threads.count, 4)
    XCTAssertEqual(Set(threads).count, 4)
    // Unqualified `Thread` is Foundation's: with a Profpack type of that name this file
    // would not compile ("'Thread' is ambiguous for type lookup").
    let current: Thread = Thread.current
    XCTAssertTrue(type(of: current) == Foundation.Thread.self)
  }
}
