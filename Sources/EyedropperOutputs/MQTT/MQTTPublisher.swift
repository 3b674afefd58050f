import Eyedropper
import Logging

/// TODO(mqtt): the libmosquitto client.
public final class MQTTPublisher: Sendable {
    public let settings: MQTTSettings

    public init(_ settings: MQTTSettings, logger: Logger) throws {
        self.settings = settings
    }

    public func publish(_ reading: SampleReading) {}

    public func close() {}
}
