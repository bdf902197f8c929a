// swift-tools-version:6.2
// 6.2 because the code uses what Swift 6.2 brought, such as the `SendableMetatype` protocol (richpush's `Command`);
// an older toolchain would read this manifest and then fail in the sources instead of saying why.
//
// No Swift package dependency, on purpose: where RichPush is built (CI, the container's build stage, engineers'
// machines) no package can be fetched, and Debian's C libraries already do the work, maintained and patched by
// Debian. They come in as the system-library targets below, found through pkg-config: libcurl (HTTP client, AWS
// SigV4 signing), libmicrohttpd (the `serve` server), libjpeg-turbo, libpng, libdeflate, libwebp, giflib and libheif
// (with libde265 and dav1d) for images, hiredis's reply reader for Redis, and OpenSSL: libcrypto for SHA-256,
// libssl for rediss://.
import PackageDescription

let package = Package(
    name: "RichPush",
    products: [
        .library(name: "RichPush", targets: ["RichPush"]),
        .executable(name: "richpush", targets: ["richpush"]),
        .executable(name: "richpush-bench", targets: ["richpush-bench"]),
    ],
    targets: [
        // System libraries from Debian, found through pkg-config.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        // libheif has no longjmp error handling, so Swift calls it directly (HEIC through libde265, AVIF through dav1d).
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // giflib reports errors by return code (no longjmp), so Swift calls it directly, without a shim.
        .systemLibrary(name: "CGIF", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // No pkgConfig: hiredis.pc adds -D_FILE_OFFSET_BITS=64, which SwiftPM refuses with a warning on every build;
        // the qualified include path in shim.h needs no flags.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // libssl, for rediss://: the Redis layer runs TLS over its own socket, and hiredis only parses the replies.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),

        // Thin C shims for what Swift cannot do: setjmp-based error handling
        // (libpng, libjpeg) and variadic curl_easy_setopt.
        // ...and a decode worker libheif runs in (fork, a child that must not touch the Swift runtime).
        .target(name: "CRichPushImage", dependencies: ["CPNG", "CJPEG", "CHeif"]),
        .target(name: "CRichPushCurl", dependencies: ["CCurl"]),
        // The variadic MHD_start_daemon.
        .target(name: "CRichPushHTTPServer", dependencies: ["CMicroHTTPD"]),

        // The library, one target per layer; a layer depends only on the layers below it.
        //   Core: JSON, SHA-256, logging, service requests, small helpers (no I/O of its own)
        //   Payload: notifications, pure          Imaging: codecs and resize
        //   HTTP: libcurl client, libmicrohttpd server       Cache: file and object-storage stores
        //   Redis: stream consumer and cache lease            Pipeline: the enricher, over all of them
        //   Preview: the story preview page, over Payload and Cache
        .target(name: "RichPushCore", dependencies: ["CCrypto"]),
        .target(name: "RichPushPayload", dependencies: ["RichPushCore"]),
        // Optimised in debug builds too: the perceptual search on every render (the default) runs SSIMULACRA2 and the
        // trellis quantiser in Swift loops that are tens of times slower unoptimised, which the tests of every
        // command that renders would wait for.
        .target(
            name: "RichPushImaging",
            dependencies: ["RichPushCore", "CRichPushImage", "CWebP", "CPNG", "CJPEG", "CHeif", "CGIF", "CDeflate"],
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(
            name: "RichPushHTTP",
            dependencies: ["RichPushCore", "CCurl", "CRichPushCurl", "CMicroHTTPD", "CRichPushHTTPServer"]),
        .target(name: "RichPushCache", dependencies: ["RichPushCore"]),
        .target(name: "RichPushRedis", dependencies: ["RichPushCore", "RichPushCache", "CHiredis", "COpenSSL"]),
        .target(
            name: "RichPushPipeline",
            dependencies: ["RichPushCore", "RichPushPayload", "RichPushImaging", "RichPushHTTP", "RichPushCache"]),
        // The story preview page and the screens it draws from validate's JSON, beside the pipeline rather than in it.
        .target(name: "RichPushPreview", dependencies: ["RichPushCore", "RichPushPayload", "RichPushCache"]),
        // Re-exports every layer for library users.
        .target(
            name: "RichPush",
            dependencies: [
                "RichPushCore", "RichPushPayload", "RichPushImaging", "RichPushHTTP", "RichPushCache", "RichPushRedis",
                "RichPushPipeline", "RichPushPreview",
            ]),
        .executableTarget(name: "richpush", dependencies: ["RichPush"]),
        // The fetch benchmark starts nginx on a loopback port with the same helpers as the tests.
        .executableTarget(name: "richpush-bench", dependencies: ["RichPush", "TestSupport"]),
        // libFuzzer targets (scripts/fuzz.sh); a plain build replays saved inputs instead.
        // Its differential PNG target compares the decode paths with ImagingTestSupport's `PNGDecodePathComparison`.
        .executableTarget(
            name: "richpush-fuzz", dependencies: ["RichPush", "RichPushImaging", "CRichPushImage", "ImagingTestSupport"]),
        // What tests and benchmarks share and production never links (ArchitectureTests holds the rule):
        // TestSupport, a loopback HTTP origin with fault modes and the servers' launchers; ImagingTestSupport, the
        // render instruments (`RenderMemoryMeter` over CTestInstruments' mallinfo2, the PNG decode-path comparison).
        .target(name: "TestSupport", dependencies: ["CPNG"], path: "Tests/TestSupport"),
        .target(name: "CTestInstruments", path: "Tests/CTestInstruments"),
        .target(
            name: "ImagingTestSupport", dependencies: ["RichPushImaging", "CDeflate", "CTestInstruments"],
            path: "Tests/ImagingTestSupport"),
        // One test target per layer, named `<Layer>Tests` (ArchitectureTests holds the rule). CoreTests depends on Core
        // alone, so what it tests cannot reach a layer above.
        .testTarget(name: "CoreTests", dependencies: ["RichPushCore", "TestSupport"]),
        .testTarget(name: "PayloadTests", dependencies: ["RichPush", "TestSupport"]),
        .testTarget(name: "ImagingTests", dependencies: ["RichPush", "TestSupport", "ImagingTestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["RichPush", "TestSupport"]),
        .testTarget(name: "CacheTests", dependencies: ["RichPush", "TestSupport"]),
        .testTarget(name: "RedisTests", dependencies: ["RichPush", "TestSupport"]),
        .testTarget(name: "PipelineTests", dependencies: ["RichPush", "TestSupport"]),
        // CLITests run the built binary; OptionSchemaTests also import it to check every option's declaration.
        .testTarget(name: "CLITests", dependencies: ["RichPush", "TestSupport", "richpush"]),
    ],
    swiftLanguageModes: [.v6]
)

// A file sees only the members of modules it imports itself, so each file's imports are its real dependencies.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
