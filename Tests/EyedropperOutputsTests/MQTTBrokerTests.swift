import EyedropperOutputs
import Testing

/// `--mqtt URL`: what is taken from it, and what is refused with which words.
@Suite struct MQTTBrokerTests {
    @Test(arguments: [
        ("mqtt://broker", MQTTBroker(tls: false, host: "broker", port: 1883)),
        ("mqtts://broker", MQTTBroker(tls: true, host: "broker", port: 8883)),
        ("mqtt://10.0.0.5:1884", MQTTBroker(host: "10.0.0.5", port: 1884)),
        ("mqtt://[::1]:1999", MQTTBroker(host: "::1", port: 1999)),
        ("mqtt://[fe80::1]", MQTTBroker(host: "fe80::1", port: 1883)),
        ("mqtt://cam@broker/", MQTTBroker(host: "broker", user: "cam")),
        ("mqtt://cam:se:cret@broker", MQTTBroker(host: "broker", user: "cam", password: "se:cret")),
        ("mqtt://c%40m:p%40ss%2Fw@h:2", MQTTBroker(host: "h", port: 2, user: "c@m", password: "p@ss/w")),
        ("mqtt://cam:@broker", MQTTBroker(host: "broker", user: "cam", password: "")),
    ])
    func parses(_ url: String, _ expected: MQTTBroker) throws {
        #expect(try MQTTBroker(url: url) == expected)
    }

    @Test(arguments: [
        ("http://broker", "must start with mqtt://"),
        ("mqtt://", "names no host"),
        ("mqtt://broker:0", "is not 1 to 65535"),
        ("mqtt://broker:x", "is not 1 to 65535"),
        ("mqtt://broker/topic", "give the topic with --mqtt-topic"),
        ("mqtt://[::1", "has no ]"),
        ("mqtt://[::1]x", "after ] comes :PORT"),
        ("mqtt://:pw@broker", "user name is empty"),
        ("mqtt://cam:%zz@broker", "password is badly percent-encoded"),
    ])
    func refuses(_ url: String, _ problem: String) {
        #expect {
            try MQTTBroker(url: url)
        } throws: { error in
            (error as? MQTTURLError)?.problem.contains(problem) == true
        }
    }

    @Test func errorsAndDescriptionsNeverShowThePassword() throws {
        #expect(try MQTTBroker(url: "mqtt://cam:hunter2@broker:99").description == "mqtt://cam@broker:99")
        #expect(try MQTTBroker(url: "mqtts://[::1]").description == "mqtts://[::1]:8883")
        do {
            _ = try MQTTBroker(url: "mqtt://cam:hunter2@broker:0")
            Issue.record("port 0 was taken")
        } catch {
            #expect(
                error.description
                    == "--mqtt mqtt://cam:***@broker:0: its port '0' is not 1 to 65535 (mqtt://[user:password@]host[:port] or mqtts://...)")
        }
    }

    @Test func topicsThatCannotBePublishedToAreRefused() {
        for bad in ["", "a/+/b", "a/#", "/a", "a/"] { #expect(MQTTSettings.problem(withTopic: bad) != nil, "\(bad)") }
        for good in ["a", "a/b c/d", "eyedropper/host/video0"] { #expect(MQTTSettings.problem(withTopic: good) == nil, "\(good)") }
        let topic = MQTTSettings.defaultTopic(camera: "a/b+c#d")
        #expect(topic.hasPrefix("eyedropper/") && topic.hasSuffix("/a_b_c_d"), "\(topic)")
        #expect(topic.split(separator: "/").count == 3)
    }
}

/// The ring between the capture thread and the publisher: drops the oldest, counts, reuses.
@Suite struct MessageQueueTests {
    @Test func fullDropsTheOldestAndCountsEach() {
        let queue = MessageQueue(limit: 3)
        for index in 0..<5 { queue.push("line \(index)") }
        var line: [UInt8] = []
        let taken = queue.monitor.locked { () -> [String] in
            #expect(queue.count == 3 && queue.dropped == 2)
            return (0..<3).map { _ in
                queue.takeOldest(into: &line)
                return String(decoding: line, as: UTF8.self)
            }
        }
        #expect(taken == ["line 2", "line 3", "line 4"])
    }

    @Test func aLinePutBackIsTakenFirstUnlessTheRingFilledMeanwhile() {
        let queue = MessageQueue(limit: 2)
        queue.push("a")
        queue.push("b")
        var line: [UInt8] = []
        queue.monitor.locked { queue.takeOldest(into: &line) }
        queue.monitor.locked { queue.putBack(&line) }
        queue.monitor.locked { queue.takeOldest(into: &line) }
        #expect(String(decoding: line, as: UTF8.self) == "a")
        queue.push("c")  // the ring is full again: b, c
        queue.monitor.locked { queue.putBack(&line) }
        queue.monitor.locked {
            #expect(queue.count == 2 && queue.dropped == 1)
            queue.takeOldest(into: &line)
        }
        #expect(String(decoding: line, as: UTF8.self) == "b")
    }

    @Test func wrapsAroundManyTimesInOrder() {
        let queue = MessageQueue(limit: 7)
        var (line, pushed, taken): ([UInt8], [String], [String]) = ([], [], [])
        for round in 0..<100 {
            for index in 0..<(round % 7 + 1) {
                pushed.append("\(round).\(index)")
                queue.push(pushed.last!)
            }
            queue.monitor.locked {
                while queue.count > 0 {
                    queue.takeOldest(into: &line)
                    taken.append(String(decoding: line, as: UTF8.self))
                }
            }
        }
        #expect(taken == pushed)
        #expect(queue.dropped == 0)
    }
}
