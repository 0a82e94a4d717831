// swift-tools-version:5.9
// Swift binding of libprofpack. Build with the library's header and shared object visible:
//   swift build -Xcc -I/usr/local/include -Xlinker -L/usr/local/lib
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
