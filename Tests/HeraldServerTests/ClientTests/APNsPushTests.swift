import Foundation
import HeraldClient
import Testing

extension ClientTests {
    @Suite("APNs push requests and results")
    struct APNsPushTests {
        @Test func onlyTheHeadersGivenAreSent() {
            let push = APNsPush(deviceToken: "ab", topic: "com.example.app", payload: Data(), pushType: nil)
            #expect(push.headers.map(\.name) == ["apns-topic"])

            let full = APNsPush(
                deviceToken: "ab", topic: "com.example.app", payload: Data(), pushType: "alert", priority: 5,
                expiration: 0, collapseID: "c", apnsID: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
            )
            #expect(
                full.headers.map(\.name) == [
                    "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id", "apns-id",
                ])
            #expect(
                full.headers.map(\.value) == [
                    "com.example.app", "alert", "5", "0", "c", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                ])
        }

        @Test func theResultPrintsAsOneJSONLineInAFixedOrder() {
            let accepted = APNsPushResult(status: 200, reason: nil, apnsID: "1b8a8e1e-…", apnsUniqueID: "u-1")
            #expect(accepted.jsonLine == #"{"status":200,"reason":null,"apns_id":"1b8a8e1e-…","apns_unique_id":"u-1"}"#)

            let gone = APNsPushResult(
                status: 410, reason: "Unregistered", apnsID: nil, apnsUniqueID: nil, timestamp: 1_700_000_000_123)
            #expect(
                gone.jsonLine
                    == #"{"status":410,"reason":"Unregistered","apns_id":null,"apns_unique_id":null,"timestamp":1700000000123}"#
            )
            #expect(!gone.isAccepted)
        }
    }
}
