import CWardSystem
import Crypto
import Glibc
import Testing
import _CryptoExtras

@testable import WardCore

/// BoringSSL's memory through Ward's hooks (`crypto_memory.c`): a large block on a huge-page
/// boundary, advised for huge pages over its whole ones only; a small one from malloc.
@Suite struct CryptoMemoryTests {
    static let hugePage = 2 << 20

    @Test func aBlockOfTwoMebibytesOrMore_startsOnAHugePage_advisedOverItsWholeHugePagesOnly() throws {
        let size = 16 << 20 + 2048  // scrypt's at N = 2^14, r = 8: V, then B and T
        let block = try #require(OPENSSL_memory_alloc(size))
        defer { OPENSSL_memory_free(block) }
        #expect(OPENSSL_memory_get_size(block) == size)
        let start = UInt(bitPattern: block) - 16
        #expect(start % UInt(Self.hugePage) == 0)
        memset(block, 0xA5, size)  // every byte the caller asked for is there

        let huge = try #require(Self.mapping(containing: start))
        #expect(huge.flags.contains("hg"), "MADV_HUGEPAGE: \(huge.flags)")
        #expect(huge.start == start && huge.end == start + UInt(16 << 20))
        // The last part, past the whole huge pages, is small pages: it weighs what malloc's would.
        let tail = try #require(Self.mapping(containing: start + UInt(16 << 20)))
        #expect(!tail.flags.contains("hg"))
        #expect(tail.end - tail.start == UInt(getpagesize()))
    }

    @Test func aSmallBlock_comesFromMalloc_withItsSize() throws {
        for size in [0, 1, 32, 4096, Self.hugePage - 1] {
            let block = try #require(OPENSSL_memory_alloc(size))
            #expect(OPENSSL_memory_get_size(block) == size)
            #expect(UInt(bitPattern: block) % 16 == 0)
            if size > 0 { memset(block, 0x5A, size) }
            OPENSSL_memory_free(block)
        }
    }

    /// Through swift-crypto: the password check's scrypt takes its buffer from the hooks. From
    /// malloc, 16 MiB of fresh small pages fault 4,096 times; on huge pages, a few dozen.
    @Test(.enabled(if: transparentHugePages != "never", "the kernel's transparent huge pages are off"))
    func scryptAtTheStandardCost_faultsInAFewHugePages_notThousandsOfSmallOnes() throws {
        let thisThread = __rusage_who_t(1)  // RUSAGE_THREAD, behind _GNU_SOURCE: no other test's faults
        var before = rusage()
        getrusage(thisThread, &before)
        _ = try KDF.Scrypt.deriveKey(
            from: Array("correct horse".utf8),
            salt: Array("sixteen byte salt".utf8),
            outputByteCount: 64,
            rounds: ScryptParameters.standard.rounds,
            blockSize: ScryptParameters.standard.r,
            parallelism: ScryptParameters.standard.p
        )
        var after = rusage()
        getrusage(thisThread, &after)
        let faults = after.ru_minflt - before.ru_minflt
        #expect(faults < 1_000, "\(faults) page faults")
    }

    /// The bracketed mode of /sys/kernel/mm/transparent_hugepage/enabled: `always`, `madvise`
    /// (Debian's) or `never`; `never` when the kernel has none.
    static let transparentHugePages: String = {
        guard let file = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r") else { return "never" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), file) != nil else { return "never" }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let open = text.firstIndex(of: "["), let close = text.firstIndex(of: "]") else { return "never" }
        return String(text[text.index(after: open)..<close])
    }()

    /// The mapping of this process that holds `address`, from /proc/self/smaps: its bounds and
    /// its `VmFlags` (`hg` is MADV_HUGEPAGE).
    static func mapping(containing address: UInt) -> (start: UInt, end: UInt, flags: [String])? {
        guard let file = fopen("/proc/self/smaps", "r") else { return nil }
        defer { fclose(file) }
        var found: (start: UInt, end: UInt)?
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            let text = String(cString: line!).trimmingSuffix()
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if let found, first == "VmFlags:" { return (found.start, found.end, fields.dropFirst().map(String.init)) }
            let bounds = first.split(separator: "-")
            if bounds.count == 2, let low = UInt(bounds[0], radix: 16), let high = UInt(bounds[1], radix: 16) {
                found = (low..<high).contains(address) ? (low, high) : nil
            }
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingSuffix() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
