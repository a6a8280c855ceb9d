/// scrypt's cost: N = 2^`logN` rounds, block size `r`, parallelism `p`.
///
/// Stored with each hash, so a store keeps verifying old hashes after the standard is raised.
/// Memory per verify is about 128 · r · N bytes (16 MiB for the standard).
public struct ScryptParameters: Sendable, Equatable, CustomStringConvertible {
    /// log2 of scrypt's N (its CPU and memory cost).
    public var logN: Int
    /// Block size.
    public var r: Int
    /// Parallelism.
    public var p: Int

    public init(logN: Int, r: Int, p: Int) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// What new hashes use: N = 2^14, r = 8, p = 1 (16 MiB). Measured on this project's 2-core
    /// machine, release build: 50 ms of CPU per hash (99 ms wall with the machine loaded);
    /// 2^15 took 137 ms (270 ms loaded), past the 50-150 ms budget that keeps sign-on and unlock
    /// from feeling slow. A debug build's BoringSSL is unoptimised: about 4 times slower.
    public static let standard = ScryptParameters(logN: 14, r: 8, p: 1)

    /// Cheap parameters for tests (well under a millisecond). Never for a real store.
    public static let testing = ScryptParameters(logN: 4, r: 8, p: 1)

    /// scrypt's N.
    public var rounds: Int { 1 << logN }

    /// True for values this build will compute: bounded so that a damaged or hostile store
    /// cannot make a verify take minutes or gigabytes.
    public var isSupported: Bool {
        (1...22).contains(logN) && (1...32).contains(r) && (1...16).contains(p) && 128 * r * p * rounds <= 1 << 30
    }

    /// `ln=14,r=8,p=1`, as in the stored hash.
    public var description: String { "ln=\(logN),r=\(r),p=\(p)" }

    /// Parses `ln=14,r=8,p=1`.
    init?(text: Substring) {
        var values: [Substring: Int] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int(parts[1]), values[parts[0]] == nil else { return nil }
            values[parts[0]] = value
        }
        guard values.count == 3, let logN = values["ln"], let r = values["r"], let p = values["p"] else { return nil }
        self.init(logN: logN, r: r, p: p)
        guard isSupported else { return nil }
    }
}
