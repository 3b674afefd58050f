import Eyedropper
import EyedropperTestSupport
import Foundation
import SystemPackage
import Testing

/// The frame's samples in I420 order (Y plane, Cb plane, Cr plane): every byte a .y4m frame holds.
private func i420Bytes(of frame: borrowing PlanarFrame) -> [UInt8] {
    var luma: [UInt8] = [], cb: [UInt8] = [], cr: [UInt8] = []
    for y in 0..<frame.height {
        for x in 0..<frame.width {
            let sample = frame.sample(x: x, y: y)
            luma.append(sample.y)
            if x % 2 == 0 && y % 2 == 0 {
                cb.append(sample.cb)
                cr.append(sample.cr)
            }
        }
    }
    return luma + cb + cr
}

/// Reads every frame of `reader` until the end of the stream.
private func readAllFrames(_ reader: Y4MReader) throws -> [[UInt8]] {
    var frames: [[UInt8]] = []
    while try reader.readFrame({ frames.append(i420Bytes(of: $0)) }) == .frame {}
    return frames
}

/// A copy of the buffer's bytes, made while the buffer is certainly alive.
private func contents(of buffer: FrameBuffer) -> [UInt8] {
    buffer.withUnsafeMutableBytes { Array($0) }
}

@Suite struct Y4MReaderTests {
    @Test(arguments: [(1, 1), (2, 2), (3, 5), (33, 17), (64, 48), (1280, 720)])
    func roundTripKeepsEveryByteOfEveryFrame(width: Int, height: Int) throws {
        let directory = try ScratchDirectory()
        let path = directory.file("pattern.y4m")
        let pattern = try TestPattern(width: width, height: height)
        let buffer = try pattern.makeFrameBuffer(layout: .i420)
        let writer = try Y4MWriter(path: path, width: width, height: height, colorimetry: pattern.colorimetry)
        var written: [[UInt8]] = []
        for index in 0..<3 {
            // Each frame differs: its first, middle and last bytes carry the frame number.
            buffer.withUnsafeMutableBytes { bytes in
                for offset in [0, bytes.count / 2, bytes.count - 1] { bytes[offset] = UInt8(17 * index + offset % 7) }
            }
            try writer.write(buffer)
            written.append(contents(of: buffer))
        }
        try writer.finish()
        #expect(try directory.names() == ["pattern.y4m"])

        let reader = try Y4MReader(path: path)
        #expect(reader.width == width && reader.height == height)
        #expect(reader.colorimetry == pattern.colorimetry)
        #expect(reader.frameRate == Y4MFrameRate(numerator: 30, denominator: 1))
        let frames = try readAllFrames(reader)
        #expect(frames.count == 3)
        for (index, frame) in frames.enumerated() {
            #expect(frame == written[index], "frame \(index) differs")
        }
        #expect(reader.framesRead == 3)
        #expect(try reader.readFrame { _ in Issue.record("no frame after the end") } == .endOfStream)
    }

    @Test func streamArrivingInSmallPiecesReadsWhole() throws {
        // A pipe fed 1000 bytes at a time: the reader sees short reads and must piece frames together.
        let frame = contents(of: try TestPattern(width: 64, height: 48).makeFrameBuffer())
        let frames = [frame, Array(frame.reversed()), frame]
        let stream = y4mBytes(header: "YUV4MPEG2 W64 H48 F30:1 C420jpeg\n", frames: frames)
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let finished = DispatchSemaphore(value: 0)
        Thread {
            var offset = 0
            while offset < stream.count {
                let count = min(1000, stream.count - offset)
                let written = stream[offset...].withUnsafeBytes { write(writeEnd, $0.baseAddress, count) }
                if written <= 0 { break }
                offset += written
                usleep(200)
            }
            close(writeEnd)
            finished.signal()
        }.start()
        defer {
            finished.wait()
            close(readEnd)
        }
        let reader = try Y4MReader(path: "/dev/fd/\(readEnd)")
        #expect(try readAllFrames(reader) == frames)
        #expect(reader.framesRead == 3)
    }

    @Test(arguments: [PixelLayout.yv12, .nv12, .nv21])
    func writerStoresOtherLayoutsInI420Order(layout: PixelLayout) throws {
        let directory = try ScratchDirectory()
        let path = directory.file("\(layout).y4m")
        let pattern = try TestPattern(width: 33, height: 17)
        let expected = contents(of: try pattern.makeFrameBuffer(layout: .i420))
        let writer = try Y4MWriter(path: path, width: 33, height: 17, colorimetry: pattern.colorimetry)
        try writer.write(try pattern.makeFrameBuffer(layout: layout))
        try writer.finish()
        #expect(try readAllFrames(Y4MReader(path: path)) == [expected])
    }

    @Test func writerHeaderNamesSizeRateChromaAndRange() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("header.y4m")
        let writer = try Y4MWriter(
            path: path, width: 33, height: 17, colorimetry: .bt601Full,
            frameRate: Y4MFrameRate(numerator: 30000, denominator: 1001))
        try writer.finish()
        #expect(
            try ScratchDirectory.read(path)
                == Array("YUV4MPEG2 W33 H17 F30000:1001 Ip A1:1 C420jpeg XCOLORRANGE=FULL XEYEDROPPER_MATRIX=BT601\n".utf8))
        let reader = try Y4MReader(path: path)
        #expect(reader.colorimetry == .bt601Full)
        #expect(try reader.readFrame { _ in } == .endOfStream)
        #expect(reader.framesRead == 0)
    }

    @Test func writerDroppedWithoutFinishLeavesNoFile() throws {
        let directory = try ScratchDirectory()
        do {
            let writer = try Y4MWriter(path: directory.file("dropped.y4m"), width: 4, height: 2, colorimetry: .bt601Limited)
            try writer.write(try TestPattern(width: 4, height: 2).makeFrameBuffer())
            #expect(try directory.names().count == 1, "the temporary file exists while writing")
        }
        #expect(try directory.names() == [])
    }

    @Test func writerInAMissingDirectoryNamesThePath() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("missing/out.y4m")
        let error = try #require(throws: Y4MError.self) {
            try Y4MWriter(path: path, width: 4, height: 2, colorimetry: .bt601Limited)
        }
        #expect(error.description.hasPrefix("\(path): "))
        #expect(error.description.contains("does not exist"))
        #expect(try directory.names() == [])
    }

    @Test(arguments: ["C420jpeg", "C420mpeg2", "C420paldv", "C420", ""])
    func acceptedChromaTagsRead(tag: String) throws {
        let directory = try ScratchDirectory()
        let path = directory.file("tag.y4m")
        try ScratchDirectory.write(y4mBytes(header: "YUV4MPEG2 W4 H2 F25:1 Ip A1:1 \(tag)\n", frames: [tinyFrame(40)]), to: path)
        let reader = try Y4MReader(path: path)
        #expect(try readAllFrames(reader) == [tinyFrame(40)])
        #expect(reader.frameRate == Y4MFrameRate(numerator: 25, denominator: 1))
    }

    @Test(arguments: ["C422", "C444", "Cmono", "C420p10", "C444alpha"])
    func otherChromaIsRefusedNamingFileAndTag(tag: String) throws {
        let directory = try ScratchDirectory()
        let path = directory.file("\(tag).y4m")
        try ScratchDirectory.write(y4mBytes(header: "YUV4MPEG2 W4 H2 F25:1 \(tag)\n", frames: [tinyFrame(0)]), to: path)
        let error = try #require(throws: Y4MError.self) { try Y4MReader(path: path) }
        #expect(error.path == path && error.frame == nil)
        #expect(error.description.hasPrefix("\(path): header: "))
        #expect(error.description.contains("'\(tag)'"))
        #expect(error.description.contains("only 8-bit 4:2:0"))
    }

    @Test(arguments: [
        ("W4 H480", Colorimetry.bt601Limited),
        ("W4 H480 XCOLORRANGE=FULL", .bt601Full),
        ("W4 H480 XCOLORRANGE=LIMITED", .bt601Limited),
        ("W4 H719 XYSCSS=420JPEG XSOMETHING=else", .bt601Limited),
        ("XCOLORRANGE=FULL H720 W4", .bt709Full),
        ("W4 H720", .bt709Limited),
        ("W4 H1080", .bt709Limited),
    ])
    func rangeTagAndHeightGiveColorimetry(fields: String, expected: Colorimetry) throws {
        let directory = try ScratchDirectory()
        let path = directory.file("colorimetry.y4m")
        try ScratchDirectory.write(Array("YUV4MPEG2 \(fields)\n".utf8), to: path)
        let reader = try Y4MReader(path: path)
        #expect(reader.colorimetry == expected)
        #expect(reader.frameRate == nil)
        #expect(try reader.readFrame { _ in } == .endOfStream)
    }

    @Test func framesCarryTheStreamColorimetryAndMayHaveParameters() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("params.y4m")
        let bytes =
            Array("YUV4MPEG2 W4 H2 F30000:1001 XCOLORRANGE=FULL\n".utf8)
            + Array("FRAME Ip XFOO=1\n".utf8) + tinyFrame(1) + Array("FRAME\n".utf8) + tinyFrame(100)
        try ScratchDirectory.write(bytes, to: path)
        let reader = try Y4MReader(path: path)
        #expect(reader.frameRate == Y4MFrameRate(numerator: 30000, denominator: 1001))
        var seen: [Colorimetry] = []
        #expect(try reader.readFrame { seen.append($0.colorimetry) } == .frame)
        #expect(try reader.readFrame { seen.append($0.colorimetry) } == .frame)
        #expect(try reader.readFrame { _ in } == .endOfStream)
        #expect(seen == [.bt601Full, .bt601Full])
    }

    @Test func truncatedFrameIsAnErrorAfterTheWholeFrames() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("cut.y4m")
        let whole = y4mBytes(header: "YUV4MPEG2 W4 H2\n", frames: [tinyFrame(10), tinyFrame(50)])
        try ScratchDirectory.write(Array(whole.dropLast(6)), to: path)
        let reader = try Y4MReader(path: path)
        var first: [UInt8] = []
        #expect(try reader.readFrame { first = i420Bytes(of: $0) } == .frame)
        #expect(first == tinyFrame(10))
        let error = try #require(throws: Y4MError.self) {
            try reader.readFrame { _ in Issue.record("a partial frame was passed on") }
        }
        #expect(error.frame == 1)
        #expect(
            error.description == "\(path): frame 1: truncated: 6 of 12 bytes: the file ends inside this frame "
                + "(cut short, or still being written); frames before it are whole")
        #expect(reader.framesRead == 1)
        // The reader stays failed rather than reading on from the middle of a frame.
        #expect(throws: error) { try reader.readFrame { _ in } }
    }

    @Test func truncatedLargeFrameIsAnError() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("cut720.y4m")
        let writer = try Y4MWriter(path: path, width: 1280, height: 720, colorimetry: .bt709Limited)
        let buffer = try FrameBuffer(layout: .i420, width: 1280, height: 720, colorimetry: .bt709Limited)
        try writer.write(buffer)
        try writer.write(buffer)
        try writer.finish()
        let bytes = try ScratchDirectory.read(path)
        try ScratchDirectory.write(Array(bytes.dropLast(1_382_400 / 2)), to: path)
        let reader = try Y4MReader(path: path)
        #expect(try reader.readFrame { _ in } == .frame)
        let error = try #require(throws: Y4MError.self) { try reader.readFrame { _ in } }
        #expect(error.description.hasPrefix("\(path): frame 1: truncated: 691200 of 1382400 bytes"))
    }

    @Test(arguments: [
        ("FRA", "frame 1: the file ends inside the FRAME line, after 3 bytes"),
        ("FRAME", "frame 1: the file ends inside the FRAME line, after 5 bytes"),
        ("FRAME Ip", "frame 1: the file ends inside the FRAME line, after 8 bytes"),
        ("FRAMX\n", "frame 1: expected 'FRAME' but found 'FRAMX'"),
        ("\n", "frame 1: expected 'FRAME' but found '\\n'"),
        ("FRAMES\n", "frame 1: expected a space or end of line after 'FRAME' but found 'S'"),
    ])
    func damagedFrameLineIsAnErrorNamingFileAndFrame(tail: String, message: String) throws {
        let directory = try ScratchDirectory()
        let path = directory.file("marker.y4m")
        try ScratchDirectory.write(y4mBytes(header: "YUV4MPEG2 W4 H2\n", frames: [tinyFrame(0)]) + Array(tail.utf8), to: path)
        let reader = try Y4MReader(path: path)
        #expect(try reader.readFrame { _ in } == .frame)
        let error = try #require(throws: Y4MError.self) { try reader.readFrame { _ in } }
        #expect(error.frame == 1)
        #expect(error.description.hasPrefix("\(path): \(message)"))
    }

    @Test func badMarkerBeforeTheFirstFrameIsFrameZero() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("marker0.y4m")
        try ScratchDirectory.write(Array("YUV4MPEG2 W4 H2\nframe\n".utf8) + tinyFrame(0), to: path)
        let error = try #require(throws: Y4MError.self) { try Y4MReader(path: path).readFrame { _ in } }
        #expect(error.description.hasPrefix("\(path): frame 0: expected 'FRAME' but found 'f'"))
    }

    @Test(
        arguments: [
            ("no signature", Array("YUV4MPEG W4 H2\n".utf8), "not a YUV4MPEG2 file"),
            ("signature run on", Array("YUV4MPEG2W4 H2\n".utf8), "not a YUV4MPEG2 file"),
            ("garbage", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], "not a YUV4MPEG2 file: it starts '\\x89PNG"),
            ("empty", [], "the file is empty"),
            ("W0", Array("YUV4MPEG2 W0 H2\n".utf8), "width 'W0' is not a whole number from 1 to 16384"),
            ("negative", Array("YUV4MPEG2 W-4 H2\n".utf8), "width 'W-4'"),
            ("not a number", Array("YUV4MPEG2 Wabc H2\n".utf8), "width 'Wabc'"),
            ("absurd", Array("YUV4MPEG2 W4 H16385\n".utf8), "height 'H16385' is not a whole number from 1 to 16384"),
            ("missing H", Array("YUV4MPEG2 W4 F25:1\n".utf8), "no height"),
            ("missing W", Array("YUV4MPEG2 H4\n".utf8), "no width"),
            ("bad rate", Array("YUV4MPEG2 W4 H2 F25\n".utf8), "frame rate 'F25'"),
            ("bad interlacing", Array("YUV4MPEG2 W4 H2 Ix\n".utf8), "interlacing 'Ix'"),
            ("bad range", Array("YUV4MPEG2 W4 H2 XCOLORRANGE=PC\n".utf8), "'XCOLORRANGE=PC'"),
            ("cut header", Array("YUV4MPEG2 W4 H2".utf8), "the file ends inside the header, after 15 bytes"),
            (
                "endless header", Array(("YUV4MPEG2 W4 H2 X" + String(repeating: "a", count: 5000) + "\n").utf8),
                "no end of line within the first 4096 bytes"
            ),
        ] as [(String, [UInt8], String)])
    func badHeaderIsAnErrorNamingTheFile(name: String, bytes: [UInt8], message: String) throws {
        let directory = try ScratchDirectory()
        let path = directory.file("bad header.y4m")
        try ScratchDirectory.write(bytes, to: path)
        let error = try #require(throws: Y4MError.self, "\(name)") { try Y4MReader(path: path) }
        #expect(error.frame == nil)
        #expect(error.description.hasPrefix("\(path): header: \(message)"), "\(name)")
    }

    @Test func missingFileSaysItDoesNotExist() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("nothing here.y4m")
        let error = try #require(throws: Y4MError.self) { try Y4MReader(path: path) }
        #expect(error.path == path && error.frame == nil)
        #expect(error.description.hasPrefix("\(path): cannot open: the file does not exist"))
        #expect(error.isMissing)
        #expect(error.systemCall == SystemCallError(operation: "open", errno: .noSuchFileOrDirectory))
    }

    @Test func directoryIsAnErrorNamingIt() throws {
        let directory = try ScratchDirectory()
        let error = try #require(throws: Y4MError.self) { try Y4MReader(path: directory.path) }
        #expect(error.description.hasPrefix("\(directory.path): cannot read: it is a directory"))
    }
}

/// Eyedropper's own tags: the matrix, a recording's controls, each frame's time.
@Suite struct Y4MTagTests {
    private func reader(_ header: String, _ frames: [String] = []) throws -> Y4MReader {
        let directory = try ScratchDirectory()
        let path = directory.file("tags.y4m")
        try ScratchDirectory.write(Array("YUV4MPEG2 \(header)\n".utf8) + frames.flatMap { Array("\($0)\n".utf8) + tinyFrame(9) }, to: path)
        return try Y4MReader(path: path)
    }

    /// The tag says the matrix whatever the height; what is not said is assumed and named.
    /// Catches the height winning over the tag, a tag read case-sensitively, and an assumption
    /// said for what the header did say.
    @Test(arguments: [
        ("W4 H480 XEYEDROPPER_MATRIX=BT709", Colorimetry.bt709Limited, "no XCOLORRANGE tag: limited range assumed"),
        ("W4 H1080 XEYEDROPPER_MATRIX=BT601 XCOLORRANGE=FULL", .bt601Full, nil),
        ("W4 H2 XEYEDROPPER_MATRIX=bt2020 XCOLORRANGE=LIMITED", Colorimetry(matrix: .bt2020, range: .limited), nil),
        ("W4 H720 XCOLORRANGE=LIMITED", .bt709Limited, "no XEYEDROPPER_MATRIX tag: matrix bt709 assumed from the height (720 lines)"),
    ])
    func matrixTagWinsOverTheHeight(fields: String, expected: Colorimetry, assumption: String?) throws {
        let header = try reader(fields).header
        #expect(header.colorimetry == expected)
        #expect(header.assumption == assumption)
    }

    @Test func damagedTagsAreRefusedNamingThem() throws {
        let matrix = try #require(throws: Y4MError.self) { try reader("W4 H2 XEYEDROPPER_MATRIX=SMPTE240M") }
        #expect(matrix.description.hasSuffix("header: 'XEYEDROPPER_MATRIX=SMPTE240M' is not XEYEDROPPER_MATRIX=BT601, BT709 or BT2020"))
        let controls = try #require(throws: Y4MError.self) { try reader("W4 H2 XEYEDROPPER_CONTROLS=brightness:128,contrast") }
        #expect(controls.description.hasSuffix("'contrast' is not name:value, e.g. brightness:128"))
        let time = try reader("W4 H2", ["FRAME XEYEDROPPER_TIME=12.5s"])
        let error = try #require(throws: Y4MError.self) { try time.readFrame { _ in } }
        #expect(error.frame == 0 && error.description.contains("XEYEDROPPER_TIME= is not a number of seconds"))
    }

    /// Each frame's time is its own: read exactly (the shortest text that is the Double), nil
    /// where a frame has none, among other parameters. Catches a time kept from the frame before,
    /// a parameter after it taken for it, and rounding on the way.
    @Test func frameTimesAreReadExactly() throws {
        let reader = try reader(
            "W4 H2 F25:1",
            ["FRAME XEYEDROPPER_TIME=0.30000000000000004", "FRAME", "FRAME Ip XEYEDROPPER_TIME=1764100123.4901234 XOTHER=1"])
        var times: [Double?] = []
        while try reader.readFrame({ _ in }) == .frame { times.append(reader.frameTime) }
        #expect(times == [0.1 + 0.2, nil, 1764100123.4901234])
    }

    /// A lent frame of any layout and stride is written as I420 with its time, and the header
    /// keeps the controls; the frame line stays under ffmpeg's 80 bytes for any Double. Catches
    /// NV12 chroma written interleaved, stride padding written, controls lost or unsorted.
    @Test func writerKeepsPlanesTimeAndControls() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("recorded.y4m")
        // 4x2 NV12 with a luma stride of 6: Y rows then one CbCr row, padding 0xEE.
        let bytes: [UInt8] = [1, 2, 3, 4, 0xEE, 0xEE, 5, 6, 7, 8, 0xEE, 0xEE, 100, 200, 101, 201, 0xEE, 0xEE]
        let writer = try Y4MWriter(
            path: path, width: 4, height: 2, colorimetry: .bt709Full, controls: ["contrast": 32, "brightness": -5])
        let time = -Double.greatestFiniteMagnitude
        try bytes.withUnsafeBytes { raw in
            let frame = try PlanarFrame(layout: .nv12, width: 4, height: 2, colorimetry: .bt709Full, packedIn: raw, lumaStride: 6)
            try writer.write(frame, time: time)
        }
        try writer.finish()
        let written = try ScratchDirectory.read(path)
        let lines = String(decoding: written.prefix(200), as: UTF8.self).split(separator: "\n")
        #expect(
            lines[0]
                == "YUV4MPEG2 W4 H2 F30:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL XEYEDROPPER_MATRIX=BT709 XEYEDROPPER_CONTROLS=brightness:-5,contrast:32"
        )
        #expect(lines[1].count + 1 <= 80, "\(lines[1])")
        let reader = try Y4MReader(path: path)
        var planes: [UInt8] = []
        #expect(try reader.readFrame { planes = i420Bytes(of: $0) } == .frame)
        #expect(planes == [1, 2, 3, 4, 5, 6, 7, 8, 100, 101, 200, 201])
        #expect(reader.frameTime == time && reader.header.controls == ["brightness": -5, "contrast": 32])
        #expect(reader.colorimetry == .bt709Full && reader.header.assumption == nil)
    }
}
