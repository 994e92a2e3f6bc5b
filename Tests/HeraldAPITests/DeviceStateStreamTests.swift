import AsyncHTTPClient
import Foundation
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldDelivery
import HeraldStore
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// `PUT /v1/devices/{id}/state` reaches the device's live streams as a `state` event.
@Suite("Device state on the live streams")
struct DeviceStateStreamTests {
    /// Waits until the device has a live session, then changes its state over HTTP.
    static func putStateWhenSubscribed(_ harness: TestHarness, port: Int, deviceID: String, token: String) async throws
    {
        try await withTimeout {
            while !harness.hub.hasSession(deviceID: deviceID) { try await Task.sleep(for: .milliseconds(10)) }
        }
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/devices/\(deviceID)/state")
        request.method = .PUT
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.body = .bytes(ByteBuffer(string: #"{"locked":false,"audio_route":"headphones"}"#))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        #expect(response.status.code == 200)
    }

    @Test("SSE: `event: state` with the state's JSON and no id")
    func serverSentEvents() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            try await withTimeout {
                var stream = try await ServerSentEventsClient.connect(
                    port: port, path: "/v1/devices/\(device.deviceID)/stream?access_token=\(token)")
                async let put: Void = Self.putStateWhenSubscribed(
                    harness, port: port, deviceID: device.deviceID, token: token)
                let event = try await stream.nextEvent()
                try await put
                #expect(event?.event == "state")
                #expect(event?.id == nil)
                #expect(event?.json["audio_route"] == .string("headphones"))
                #expect(event?.json["device_id"] == .string(device.deviceID))
            }
        }
    }

    @Test("WebSocket: a message of type `state`")
    func webSocket() async throws {
        let harness = try TestHarness()
        let (token, device) = try await harness.makeDevice()
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let received = HeraldMutex<[JSONValue]>([])
            try await withTimeout {
                async let put: Void = Self.putStateWhenSubscribed(
                    harness, port: port, deviceID: device.deviceID, token: token)
                try await WebSocketStreamTests.session(
                    port: port, path: "/v1/devices/\(device.deviceID)/stream?access_token=\(token)"
                ) { message in
                    received.withLock { $0.append(message) }
                    return false
                }
                try await put
            }
            let message = try #require(received.withLock { $0.first })
            #expect(message["type"] == .string("state"))
            #expect(message["state"]?["locked"] == .bool(false))
        }
    }
}
