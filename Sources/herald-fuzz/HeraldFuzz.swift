import Foundation
import HeraldFuzzing

/// `herald-fuzz TARGET [ARGUMENTS…]`: one executable for every fuzz target of HeraldFuzzing.
///
/// Built normally (`swift build`), this `main` replays inputs: `herald-fuzz json-parser FILE|DIR…` runs
/// each file through the target's property and exits 1 if one breaks it (for reproducing a crash
/// libFuzzer saved without the fuzz build). Built by `scripts/fuzz` with `-sanitize=fuzzer,address
/// -DHERALD_LIBFUZZER`, it hands the target to libFuzzer's driver (`LLVMFuzzerRunDriver`) with the
/// arguments after the target's name (a corpus directory, `-max_total_time=…`, …). This `main` is the
/// program's entry point in both builds (SwiftPM links an executable's own entry point as `main`);
/// libFuzzer's `main`, linked in by `-sanitize=fuzzer`, wants `LLVMFuzzerTestOneInput`, defined below.
@main
struct HeraldFuzz {
    static func main() {
        var arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget.named(arguments[1]) else {
            let names = FuzzTarget.all.map { "  \($0.name): \($0.property)" }.joined(separator: "\n")
            FileHandle.standardError.write(Data("usage: herald-fuzz TARGET [FILE|DIR…]\ntargets:\n\(names)\n".utf8))
            exit(arguments.count >= 2 && arguments[1] == "--list" ? 0 : 2)
        }
        arguments.remove(at: 1)
        #if HERALD_LIBFUZZER
            exit(runLibFuzzer(target, arguments: arguments))
        #else
            exit(replay(target, paths: Array(arguments.dropFirst())))
        #endif
    }

    /// Runs every file (or every file of every directory) through the target; 1 if one fails.
    static func replay(_ target: FuzzTarget, paths: [String]) -> Int32 {
        var failures = 0
        var count = 0
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                print("\(path): no such file")
                failures += 1
                continue
            }
            let files =
                isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { "\(path)/\($0)" }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                count += 1
                do {
                    try target.check([UInt8](data))
                } catch {
                    failures += 1
                    print("\(file): \(error)")
                }
            }
        }
        print("\(target.name): \(count) inputs, \(failures) failed")
        return failures == 0 ? 0 : 1
    }
}

#if HERALD_LIBFUZZER
    /// The target libFuzzer calls back into (chosen once, before fuzzing starts).
    nonisolated(unsafe) private var selectedTarget: FuzzTarget?

    /// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t))`
    /// (compiler-rt, FuzzerDriver.cpp): libFuzzer's driver for a program with its own `main`.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    private func runLibFuzzer(_ target: FuzzTarget, arguments: [String]) -> Int32 {
        selectedTarget = target
        // A child process libFuzzer starts itself (`-fork`, `-merge`) gets libFuzzer's arguments only.
        setenv("HERALD_FUZZ_TARGET", target.name, 1)
        var argc = CInt(arguments.count)
        let pointers = arguments.map { strdup($0) } + [nil]
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: pointers.count)
        argv.initialize(from: pointers, count: pointers.count)
        var argvPointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        return LLVMFuzzerRunDriver(&argc, &argvPointer) { data, size in fuzzerTestOneInput(data, size) }
    }

    /// One input: a broken property is a crash, so that libFuzzer saves the input.
    @_cdecl("LLVMFuzzerTestOneInput")
    func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        if selectedTarget == nil {
            selectedTarget = ProcessInfo.processInfo.environment["HERALD_FUZZ_TARGET"].flatMap(FuzzTarget.named)
        }
        guard let target = selectedTarget else { fatalError("herald-fuzz: no target (HERALD_FUZZ_TARGET)") }
        let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
        do {
            try target.check(bytes)
        } catch {
            fatalError("\(target.name): property broken: \(error)")
        }
        return 0
    }
#endif
