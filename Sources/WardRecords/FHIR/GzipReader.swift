import CZlib
import Glibc

/// The uncompressed bytes of a gzip file (`*.ndjson.gz`, as FHIR `$export` servers may write),
/// a chunk at a time, through zlib's `inflate`.
///
/// Several gzip members one after another (what `cat a.gz b.gz` makes) read as one stream, as
/// `gunzip` reads them. A file cut short, or bytes that are not gzip, are an error naming zlib's
/// reason; nothing read before it is imported (the export is one transaction). Memory is one
/// input chunk and zlib's 32 KiB window, whatever the file's size.
final class GzipReader {
    private var stream = z_stream()
    private let descriptor: Int32
    private let input: UnsafeMutableBufferPointer<UInt8>
    /// The file has no more bytes to read.
    private var inputEnded = false
    /// Bytes of a member have gone in since its start: an end of input now is a file cut short.
    private var inMember = false
    private var finished = false

    /// Why the bytes could not be inflated: zlib's message, or "the file is cut short".
    struct Failure: Error {
        let reason: String
    }

    /// Reads the open file `descriptor` (which the caller closes).
    init(descriptor: Int32) throws {
        self.descriptor = descriptor
        input = .allocate(capacity: NDJSONLines.chunkSize)
        // 15 + 32: the largest window, and a gzip (or zlib) header detected and checked.
        let status = inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            input.deallocate()
            throw Failure(reason: "zlib could not start (\(status))")
        }
    }

    deinit {
        inflateEnd(&stream)
        input.deallocate()
    }

    /// Fills `output` with the next uncompressed bytes; their count, 0 at the end.
    /// Throws `StoreError.unreadable` when the file cannot be read, `Failure` when it is not gzip.
    func read(into output: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        guard !finished, output.count > 0 else { return 0 }
        stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = UInt32(output.count)
        while Int(stream.avail_out) == output.count {
            if stream.avail_in == 0 && !inputEnded {
                var count: Int
                repeat {
                    count = Glibc.read(descriptor, input.baseAddress, input.count)
                } while count < 0
                    && errno == EINTR
                guard count >= 0 else { throw StoreError.unreadable(path: path) }
                if count == 0 { inputEnded = true }
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(count)
            }
            if stream.avail_in == 0 && inputEnded {
                if inMember { throw Failure(reason: "the file is cut short") }
                finished = true
                break
            }
            inMember = true
            let status = inflate(&stream, Z_NO_FLUSH)
            switch status {
            case Z_STREAM_END:
                // A member ends; another may follow (concatenated gzip files read as one).
                inMember = false
                inflateReset(&stream)
            case Z_OK, Z_BUF_ERROR:
                continue
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw Failure(reason: message)
            }
        }
        return output.count - Int(stream.avail_out)
    }
}
