import ArgumentParser
import Foundation
import HeraldClient
import HeraldCore
import HeraldServer

/// Where the JSON API is and which user calls it: `--url`, `--token`, `--data` (whose demo user's
/// token and URL are the defaults).
struct UserConnection: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The JSON API's URL (default: the data directory's, else http://127.0.0.1:8080).", valueName: "url"))
    var url: String?

    @Option(
        help: ArgumentHelp("The user's bearer token (default: the data directory's demo user).", valueName: "token"))
    var token: String?

    @OptionGroup var data: DataDirectoryOption

    func validate() throws {
        if let url, URL(string: url)?.host == nil {
            throw ValidationError("--url must look like http://host[:port], not \(url).")
        }
        if token == nil, data.directoryOrDefault == nil {
            throw ValidationError("Missing --token: give the user's token, or --data DIR to use the demo user's.")
        }
    }

    /// The demo setup of the data directory, when one is needed for a default.
    func demo() throws -> DemoSetup? {
        try data.directoryOrDefault?.requireDemo()
    }

    /// Calls the API as the user and hands the answer to `output` (default: print it as is).
    func perform(
        _ call: (HeraldAPIClient) async throws -> Data,
        output: (Data) throws -> Void = { body in
            let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { Console.printLine(text) }
        }
    ) async throws {
        let directory = data.directoryOrDefault
        guard let token = try token ?? demo()?.userToken else {
            throw ValidationError("Missing --token.")
        }
        let urlString = url ?? directory?.runtimeOrDefaults().apiURL ?? RuntimeInfo.defaults().apiURL
        try await performAPICall(urlString: urlString, token: token, call, output: output)
    }
}

/// Calls the API with `call`; an API error goes to stderr as JSON and exits with 1.
func performAPICall(
    urlString: String, token: String, _ call: (HeraldAPIClient) async throws -> Data, output: (Data) throws -> Void
) async throws {
    guard let baseURL = URL(string: urlString) else { throw ValidationError("--url is not a URL: \(urlString)") }
    let client = try HeraldAPIClient(baseURL: baseURL, bearerToken: token)
    let result: Result<Data, any Error>
    do {
        result = .success(try await call(client))
    } catch {
        result = .failure(error)
    }
    try await client.shutdown()
    switch result {
    case .success(let body):
        try output(body)
    case .failure(let error as HeraldAPIError):
        Console.printError(error.jsonLine)
        throw ExitCode.failure
    case .failure(let error as CommandFailure):
        throw error
    case .failure(let error):
        Console.printError(
            OrderedJSONObject([
                "error": .object([
                    "code": .string("connection_failed"),
                    "message": .string("No answer from \(urlString): \(error)"),
                ])
            ]).jsonLine)
        throw ExitCode.failure
    }
}

/// Values of `--flag true|false` options.
enum Toggle: String, CaseIterable, ExpressibleByArgument {
    case `true`, `false`, on, off, yes, no

    var value: Bool { self == .true || self == .on || self == .yes }
}
