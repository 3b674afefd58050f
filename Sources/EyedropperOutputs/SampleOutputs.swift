import EyedropperPipeline

/// Where each line of samples goes besides stdout or HTTP: an MQTT broker (`MQTTPublisher`) and an
/// OSC peer (`OSCSender`). `send` is called on the capture path, once per line, and never waits on
/// the network.
public final class SampleOutputs: Sendable {
    public let mqtt: MQTTPublisher?
    public let osc: OSCSender?

    public init(mqtt: MQTTPublisher?, osc: OSCSender?) {
        self.mqtt = mqtt
        self.osc = osc
    }

    /// Hands one reading to each output; `json` is its JSON line, made only if an output sends it.
    public func send(_ reading: Reading, json: @autoclosure () -> String) {
        mqtt?.publish(json())
        osc?.send(reading)
    }

    /// Sends what is queued (within the MQTT publisher's `closeTimeout`), says offline, and
    /// closes.
    public func close() {
        mqtt?.close()
        osc?.close()
    }
}
