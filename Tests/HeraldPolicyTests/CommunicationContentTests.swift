import HeraldCore
import HeraldPolicy
import Testing

@Suite("The communication payload key")
struct CommunicationContentTests {
    func parse(_ json: String) throws -> CommunicationContent.Parsed {
        CommunicationContent.parse(try NotificationPayload(json: Array(json.utf8)))
    }

    @Test func aFullMessageReadsWithItsSenderGroupAndRecipients() throws {
        let parsed = try parse(
            #"""
            {"aps":{"alert":"Hi"},"communication":{"kind":"message","group":"Lunch crew",
             "sender":{"handle":" +1 (555) 010-0200 ","handle_type":"phone","display_name":"Ana","id":"ana-1","avatar":"ana.png"},
             "recipients":[{"handle":"Ben@Example.com","handle_type":"email","display_name":"Ben"},{"handle":"cleo-7","handle_type":"unknown"},{"handle":"dan","handle_type":"app"}]}}
            """#)
        let content = try #require(parsed.content)
        #expect(content.kind == .message)
        #expect(content.sender.handle == PersonHandle("+15550100200", kind: .phoneNumber))
        #expect(
            content.sender.name == "Ana" && content.sender.identifier == "ana-1" && content.sender.avatar == "ana.png")
        #expect(content.group == "Lunch crew")
        #expect(
            content.recipients.map(\.handle) == [
                PersonHandle("ben@example.com", kind: .emailAddress), PersonHandle("cleo-7", kind: .appSpecific),
                PersonHandle("dan", kind: .appSpecific),
            ])
        // Without a display name, the handle as sent is the name
        #expect(content.recipients[1].name == "cleo-7")
    }

    @Test func aPayloadWithoutTheKeyIsNotCommunication() throws {
        #expect(try parse(#"{"aps":{"alert":"Hi"},"other":1}"#) == .none)
    }

    @Test func theSenderMatchesAFocusPersonWrittenAnotherWay() throws {
        let content = try #require(
            try parse(
                #"{"aps":{},"communication":{"kind":"call","sender":{"handle":"(555) 010-0200","handle_type":"phone"}}}"#
            ).content)
        #expect(content.kind == .call)
        #expect(PersonHandle("+1 555 010 0200", kind: .phoneNumber).matches(content.sender.handle))
    }

    @Test(arguments: [
        (#"[]"#, "communication must be an object."),
        (#"{"sender":{"handle":"a@b.c","handle_type":"email"}}"#, #"communication.kind must be "message" or "call"."#),
        (
            #"{"kind":"sms","sender":{"handle":"a@b.c","handle_type":"email"}}"#,
            #"communication.kind must be "message" or "call"."#
        ),
        (#"{"kind":"message"}"#, "communication.sender is missing."),
        (#"{"kind":"message","sender":"Ana"}"#, "communication.sender must be an object."),
        (
            #"{"kind":"message","sender":{"handle":"a@b.c","handle_type":"email"},"urgent":true}"#,
            "communication has an unknown key urgent."
        ),
        (
            #"{"kind":"message","sender":{"handle":"a@b.c","handle_type":"email","nickname":"A"}}"#,
            "communication.sender has an unknown key nickname."
        ),
        (
            #"{"kind":"message","sender":{"handle":"  ","handle_type":"email"}}"#,
            "communication.sender.handle must be a non-empty string."
        ),
        (
            #"{"kind":"message","sender":{"handle":"a@b.c"}}"#,
            #"communication.sender.handle_type must be "phone", "email" or "unknown"."#
        ),
        (
            #"{"kind":"message","sender":{"handle":"a@b.c","handle_type":"fax"}}"#,
            #"communication.sender.handle_type must be "phone", "email" or "unknown"."#
        ),
        (
            #"{"kind":"message","sender":{"handle":"call me","handle_type":"phone"}}"#,
            "communication.sender.handle is not a phone number."
        ),
        (
            #"{"kind":"message","sender":{"handle":"ana","handle_type":"email"}}"#,
            "communication.sender.handle is not an e-mail address."
        ),
        (
            #"{"kind":"message","sender":{"handle":"a@b.c","handle_type":"email","display_name":""}}"#,
            "communication.sender.display_name must be a non-empty string."
        ),
        (
            #"{"kind":"message","sender":{"handle":"a@b.c","handle_type":"email"},"group":7}"#,
            "communication.group must be a non-empty string."
        ),
        (
            #"{"kind":"message","sender":{"handle":"a@b.c","handle_type":"email"},"recipients":{}}"#,
            "communication.recipients must be an array of persons."
        ),
        (
            #"{"kind":"message","sender":{"handle":"a@b.c","handle_type":"email"},"recipients":[{"handle":"x"}]}"#,
            #"communication.recipients[0].handle_type must be "phone", "email" or "unknown"."#
        ),
    ])
    func aMalformedKeySaysWhatIsWrong(communication: String, message: String) throws {
        #expect(try parse(#"{"aps":{},"communication":\#(communication)}"#) == .invalid(message))
    }
}
