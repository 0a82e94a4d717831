// swift-tools-version:5.9
// Swift binding of libprofpack. SwiftPM finds the installed library through pkg-config
// (profpack.pc): after `meson install`, set PKG_CONFIG_PATH to its directory if that is not
// a standard one, e.g. PKG_CONFIG_PATH=/usr/local/lib/x86_64-linux-gnu/pkgconfig swift build
import Foundation
import PackageDescription

// SwiftPM passes on only -L and -l of pkg-config's flags, not the RUNPATH the .pc adds: the
// library directory pkg-config names is added here, so that a program runs without
// LD_LIBRARY_PATH wherever the library was installed.
func libraryDirectory() -> String? {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  p.arguments = ["pkg-config", "--variable=libdir", "profpack"]
  let out = Pipe()
  p.standardOutput = out
  p.standardError = FileHandle.nullDevice
  guard (try? p.run()) != nil else { return nil }
  p.waitUntilExit()
  guard p.terminationStatus == 0 else { return nil }
  let dir = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    .trimmingCharacters(in: .whitespacesAndNewlines)
  return dir.isEmpty ? nil : dir
}
let runpath: [LinkerSetting] = libraryDirectory().map {
  [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", $0])]
} ?? []

let package = Package(
  name: "Profpack",
  products: [.library(name: "Profpack", targets: ["Profpack"])],
  targets: [
    .systemLibrary(name: "CProfpack", path: "Sources/CProfpack", pkgConfig: "profpack"),
    .target(name: "Profpack", dependencies: ["CProfpack"], linkerSettings: runpath),
    .testTarget(name: "ProfpackTests", dependencies: ["Profpack", "CProfpack"]),
  ]
)
