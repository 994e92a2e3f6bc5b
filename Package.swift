// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "herald",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .executable(name: "herald-example-app", targets: ["herald-example-app"]),
        .executable(name: "herald-example-extension", targets: ["herald-example-extension"]),
        .library(name: "HeraldCore", targets: ["HeraldCore"]),
        .library(name: "HeraldServer", targets: ["HeraldServer"]),
        // Apple's UserNotifications and Intents APIs for Swift programs on Linux (README, "import
        // UserNotifications on Linux"). Their sources compile only on Linux; a package that uses them
        // depends on them with `condition: .when(platforms: [.linux])`, so that on Apple's platforms
        // `import UserNotifications` finds the system framework.
        .library(name: "UserNotifications", targets: ["UserNotifications"]),
        .library(name: "Intents", targets: ["Intents"]),
        .library(name: "HeraldEmbedded", targets: ["HeraldEmbedded"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        .target(
            name: "HeraldCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldPolicy",
            dependencies: ["HeraldCore", "HeraldLocalization"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldLocalization",
            dependencies: [],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldStore",
            dependencies: [
                "HeraldCore", "HeraldPolicy",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the group commit's text bindings (UpsertText).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The PostgreSQL store (issue 12), in a module of its own so that what does not run on
        // PostgreSQL (the fuzz targets, the SQLite-only tools) does not build PostgresNIO.
        .target(
            name: "HeraldPostgres",
            dependencies: [
                "HeraldCore", "HeraldPolicy", "HeraldStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldDelivery",
            dependencies: [
                "HeraldCore", "HeraldPolicy", "HeraldLocalization", "HeraldStore", "HeraldTriggers",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldAPNs",
            dependencies: [
                "HeraldCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Prometheus metrics (`GET /metrics`): swift-metrics' API over swift-prometheus's registry,
        // one registry per application (no process-wide bootstrap: tests run many applications).
        .target(
            name: "HeraldMetrics",
            dependencies: [
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldAPI",
            dependencies: [
                "HeraldCore", "HeraldStore", "HeraldPolicy", "HeraldLocalization", "HeraldDelivery", "HeraldTriggers",
                "HeraldAttachments", "HeraldMetrics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/web")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldCore", "HeraldStore", "HeraldAPNs", "HeraldAPI", "HeraldPolicy", "HeraldLocalization",
                "HeraldDelivery", "HeraldPostgres", "HeraldMetrics",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HeraldClient",
            dependencies: [
                "HeraldCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "herald",
            dependencies: [
                "HeraldCore", "HeraldServer", "HeraldClient", "HeraldDelivery", "HeraldPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "herald-policy-bench",
            dependencies: ["HeraldCore", "HeraldPolicy", "HeraldStore", "HeraldDelivery", "HeraldServer", "HeraldAPI"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "herald-h2-floor",
            dependencies: [
                "HeraldAPNs", "HeraldCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "herald-push-logic-bench",
            dependencies: [
                "HeraldAPI", "HeraldAPNs", "HeraldCore", "HeraldDelivery", "HeraldPolicy", "HeraldServer",
                "HeraldStore", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "herald-trigger-bench",
            dependencies: [
                "HeraldCore", "HeraldPolicy", "HeraldStore", "HeraldDelivery", "HeraldTriggers",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The fuzz targets (docs/reliability.md, "Fuzzing"): each parser's property lives in
        // HeraldFuzzing, so the normal test run replays the committed corpus through the same code
        // (HeraldFuzzingTests) that libFuzzer drives. `herald-fuzz` is one executable for every
        // target: built normally it replays files (`herald-fuzz json-parser Fuzz/Corpus/json-parser`);
        // built by `scripts/fuzz` into .build-fuzz with `-sanitize=fuzzer,address -DHERALD_LIBFUZZER`
        // its `main` hands the chosen target to libFuzzer's driver instead. The normal `swift build`
        // and `swift test` are unchanged apart from building these three small targets.
        .target(
            name: "HeraldFuzzing",
            dependencies: [
                "HeraldCore", "HeraldAPNs", "HeraldAPI", "HeraldLocalization", "HeraldClient", "HeraldTriggers",
                .target(name: "UserNotifications", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "herald-fuzz",
            dependencies: ["HeraldFuzzing"],
            swiftSettings: swiftSettings
        ),
        // CoreLocation's region types, which UserNotifications' location trigger takes (Linux has no
        // CoreLocation); UserNotifications re-exports it, as Apple's does.
        .target(name: "CoreLocation", dependencies: ["HeraldTriggers"], swiftSettings: swiftSettings),
        .target(
            name: "UserNotifications", dependencies: ["CoreLocation", "HeraldTriggers", "HeraldAttachments"],
            swiftSettings: swiftSettings),
        // Triggers as both sides see them (Foundation only): UserNotifications encodes its triggers and
        // computes `nextTriggerDate()` with it, the server decodes and schedules with it.
        .target(name: "HeraldTriggers", swiftSettings: swiftSettings),
        // The attachment types both sides check (UserNotifications when a file is attached, the
        // server when it keeps one). Pure.
        .target(name: "HeraldAttachments", swiftSettings: swiftSettings),
        .target(
            name: "HeraldEmbedded",
            dependencies: [
                "HeraldServer", "HeraldAPI", "HeraldClient", "HeraldCore", "HeraldDelivery", "HeraldStore",
                .target(name: "UserNotifications", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "Intents", dependencies: ["UserNotifications"], swiftSettings: swiftSettings),
        // The README tour's app: Apple's UserNotifications API on Linux against a Herald server
        // (tests/interop/test_example_app.py runs it).
        .executableTarget(
            name: "herald-example-app",
            dependencies: [.target(name: "UserNotifications", condition: .when(platforms: [.linux]))],
            path: "Examples/ReminderApp",
            swiftSettings: swiftSettings
        ),
        // The sessions' notification service extension (WWDC17 708's download-and-attach with its
        // expiry fallback, WWDC21 10091's message intent), launched by Herald in the extension tests.
        .executableTarget(
            name: "herald-example-extension",
            dependencies: [
                .target(name: "UserNotifications", condition: .when(platforms: [.linux])),
                .target(name: "Intents", condition: .when(platforms: [.linux])),
            ],
            path: "Examples/MediaExtension",
            // The sessions' code as written (2017/2021): Swift 5 mode, where its completion handlers
            // need not be Sendable.
            swiftSettings: swiftSettings + [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "UserNotificationsTests",
            dependencies: [
                .target(name: "UserNotifications", condition: .when(platforms: [.linux])),
                .target(name: "Intents", condition: .when(platforms: [.linux])),
                .target(name: "CoreLocation", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldTriggersTests",
            dependencies: ["HeraldTriggers"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldCoreTests",
            dependencies: ["HeraldCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldPolicyTests",
            dependencies: [
                "HeraldCore", "HeraldPolicy", "HeraldLocalization",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldLocalizationTests",
            dependencies: ["HeraldLocalization"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: [
                "HeraldCore", "HeraldStore", "HeraldPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldAPITests",
            dependencies: [
                "HeraldCore", "HeraldStore", "HeraldAPI", "HeraldDelivery", "HeraldPolicy",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldAPNsTests",
            dependencies: [
                "HeraldAPNs", "HeraldCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldFuzzingTests",
            dependencies: ["HeraldFuzzing"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                "HeraldCore", "HeraldStore", "HeraldAPNs", "HeraldAPI", "HeraldServer", "HeraldClient", "HeraldPolicy",
                "HeraldDelivery", "HeraldEmbedded",
                .target(name: "UserNotifications", condition: .when(platforms: [.linux])),
                .target(name: "Intents", condition: .when(platforms: [.linux])),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
