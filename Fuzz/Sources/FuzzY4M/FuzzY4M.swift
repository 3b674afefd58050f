import Eyedropper
import FuzzSupport

/// Frames larger than this are not read: the input (at most -max_len bytes) cuts them short
/// either way, and the reader's path for a cut-short frame is the same at any size; what it would
/// add is only the allocation of up to 16384x16384 (384 MiB) per input.
let largestFrameRead = 1 << 22

/// A `.y4m` file of the input's bytes, read as `eyedropper sample --source FILE` reads it: header,
/// then frame after frame until the end or an error.
func fuzzY4M(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(data, count)
    let headerLine =
        bytes.prefix(Y4MHeader.maximumLength).split(
            separator: UInt8(ascii: "\n"), maxSplits: 1,
            omittingEmptySubsequences: false
        ).first ?? []
    if let header = try? Y4MHeader(parsing: headerLine + [UInt8(ascii: "\n")], path: "header"),
        header.frameByteCount > largestFrameRead
    {
        return 0
    }
    let file = MemoryFile(bytes)
    let reader: Y4MReader
    do {
        reader = try Y4MReader(path: file.path)
    } catch {
        checkDamaged(error)
        return 0
    }
    let header = reader.header
    // What the writer puts at the top of a file reads back as the same header.
    let reparsed = try? Y4MHeader(parsing: Array(header.line.utf8), path: "line")
    invariant(reparsed == header, "header \(header) written as \(header.line) reads back as \(String(describing: reparsed))")
    while true {
        do {
            let result = try reader.readFrame { frame in
                invariant(
                    frame.width == header.width && frame.height == header.height,
                    "frame \(frame.width)x\(frame.height) in a \(header.width)x\(header.height) stream")
            }
            if result == .endOfStream { break }
        } catch let error as Y4MError {
            checkDamaged(error)
            // Every read after an error reports the same error.
            do {
                _ = try reader.readFrame { _ in invariant(false, "a frame after \(error)") }
                invariant(false, "a read after \(error) did not fail")
            } catch let again as Y4MError {
                invariant(again == error, "after \(error), the next read said \(again)")
            } catch {
                invariant(false, "\(error)")
            }
            break
        } catch {
            invariant(false, "readFrame threw \(error), not a Y4MError")
        }
    }
    // Whole frames only: each took at least its FRAME line and its bytes.
    invariant(
        reader.framesRead * (header.frameByteCount + 6) <= bytes.count,
        "\(reader.framesRead) frames of \(header.frameByteCount) bytes from \(bytes.count) bytes")
    return 0
}

/// A file that exists and reads without a system error can only be bad data (exit 65).
func checkDamaged(_ error: Y4MError) {
    invariant(!error.isMissing && error.systemCall == nil, "damaged data reported as \(error)")
}
