// swift-tools-version:5.9
// Swift binding of libprofpack. SwiftPM finds the installed library through pkg-config
// (profpack.pc): after `meson install`, set PKG_CONFIG_PATH to its directory if that is not
// a standard one, e.g. PKG_CONFIG_PATH=/usr/local/lib/x86_64-linux-gnu/pkgconfig swift build
import PackageDescription

let package = Package(
  name: "Profpack",
  products: [.library(name: "Profpack", targets: ["Profpack"])],
  targets: [
    .systemLibrary(name: "CProfpack", path: "Sources/CProfpack", pkgConfig: "profpack"),
    .target(name: "Profpack", dependencies: ["CProfpack"]),
    .testTarget(name: "ProfpackTests", dependencies: ["Profpack"]),
  ]
)
