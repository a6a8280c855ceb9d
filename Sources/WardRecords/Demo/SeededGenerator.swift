/// xoshiro256** seeded through SplitMix64: the demo generator's only source of randomness.
///
/// Our own rather than `SystemRandomNumberGenerator` so a seed gives the same home on every
/// machine and every Swift release (the standard library promises no stable seeded generator).
/// Each patient gets a generator of its own, derived from the seed and its index, so a patient's
/// history does not depend on batch sizes or on how many patients came before it.
struct SeededGenerator: RandomNumberGenerator {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// The generator for one `stream` (a patient index) of a `seed`.
    init(seed: UInt64, stream: UInt64 = 0) {
        var mix = SplitMix64(state: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        s0 = mix.next()
        s1 = mix.next()
        s2 = mix.next()
        s3 = mix.next()
    }

    mutating func next() -> UInt64 {
        let result = rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 45)
        return result
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-shift; the tiny bias is irrelevant here).
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int((UInt128(next()) &* UInt128(bound)) >> 64)
    }

    /// A uniform integer in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// A uniform double in `0..<1`, from the top 53 bits.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        unit() < p
    }

    /// An approximately normal value: the sum of four uniforms (Irwin–Hall), cheap and bounded,
    /// so no value lands absurdly far from the mean (no 300 mmHg blood pressures).
    mutating func normal(mean: Double, sd: Double) -> Double {
        let sum = unit() + unit() + unit() + unit()
        return mean + (sum - 2) * sd * 1.732_050_8
    }

    /// One element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}

/// SplitMix64: spreads a 64-bit seed over xoshiro's 256-bit state, as its authors recommend.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
