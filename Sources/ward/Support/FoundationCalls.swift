#if WARD_WITHOUT_FOUNDATION
import FoundationEssentials
import Glibc

// The release binary links FoundationEssentials but not the full Foundation, which would bring
// CoreFoundation and ICU with it: 43 MB of a 74 MB binary, and CoreFoundation's start-up work in
// every process. `scripts/build-release` turns off the automatic linking of Foundation and
// defines WARD_WITHOUT_FOUNDATION. Two dependencies still call it, and these are those calls,
// under Foundation's own symbol names so that the linker finds them here:
//
// - postgres-nio: `String(format:)` for hex digits, and `range(of:)` (inside `contains`) and
//   `replacingOccurrences(of:with:)` for the SCRAM-SHA-256 sign-on, all with default options;
// - NIOFoundationCompat: `RunLoop` and `JSONSerialization`, from functions Ward never calls.
//
// Any other call into Foundation, from Ward (which imports FoundationEssentials only and whose
// targets build with MemberImportVisibility) or from a dependency, fails the release link with
// an undefined symbol: that failure is the check. A call outside what is written here stops the
// process with its name rather than answer differently from Foundation.
//
// Only the release binary has them: in a debug build Foundation is a shared library, and the
// test bundles that link this module call Foundation's own.

extension StringProtocol {
    /// `StringProtocol.range(of:options:range:locale:)`: canonical-equivalent search, as
    /// Foundation's with no options.
    @_silgen_name(
        "$sSy10FoundationE5range2of7optionsAB6localeSnySS5IndexVGSgqd___SS0A10EssentialsE14CompareOptionsVAiJ6LocaleVSgtSyRd__lF"
    )
    public func wardFoundationRange<Target: StringProtocol>(
        of target: Target,
        options: String.CompareOptions,
        range: Range<String.Index>?,
        locale: Locale?
    ) -> Range<String.Index>? {
        guard options.isEmpty, range == nil, locale == nil else {
            unsupported("range(of:) with options, a range or a locale")
        }
        return firstRange(of: String(target))
    }

    /// `StringProtocol.replacingOccurrences(of:with:options:range:)`, with no options or range.
    @_silgen_name(
        "$sSy10FoundationE20replacingOccurrences2of4with7options5rangeSSqd___qd_0_SS0A10EssentialsE14CompareOptionsVSnySS5IndexVGSgtSyRd__SyRd_0_r0_lF"
    )
    public func wardFoundationReplacingOccurrences<Target: StringProtocol, Replacement: StringProtocol>(
        of target: Target,
        with replacement: Replacement,
        options: String.CompareOptions,
        range: Range<String.Index>?
    ) -> String {
        guard options.isEmpty, range == nil else {
            unsupported("replacingOccurrences(of:with:) with options or a range")
        }
        return String(self).replacing(String(target), with: String(replacement))
    }
}

/// `String(format:locale:arguments:)` through the C library's `vsnprintf`, in the C locale Ward
/// never changes: the same text for every conversion C has. `%@`, Foundation's own, is refused.
@_silgen_name("$sSS10FoundationE6format6locale9argumentsS2Sh_0A10Essentials6LocaleVSghSays7CVarArg_pGhtcfC")
public func wardFoundationFormat(_ format: String, _ locale: Locale?, _ arguments: [CVarArg]) -> String {
    guard locale == nil, !format.contains("%@") else { unsupported("String(format:) with a locale or %@") }
    let length = withVaList(arguments) { vsnprintf(nil, 0, format, $0) }
    guard length >= 0 else { unsupported("String(format:) with a format C refuses") }
    var bytes = [CChar](repeating: 0, count: Int(length) + 1)
    _ = withVaList(arguments) { vsnprintf(&bytes, bytes.count, format, $0) }
    return String(decoding: bytes.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// NIOFoundationCompat's `waitSpinningRunLoop()` and `JSONSerialization.jsonObject(with:)` on a
/// buffer, which nothing in Ward calls: the symbols they name, each stopping the process.
@_silgen_name("$s10Foundation7RunLoopCMa")
public func wardFoundationRunLoopMetadata() -> Never { unsupported("RunLoop") }

@_silgen_name("$s10Foundation7RunLoopC7currentACvgZ")
public func wardFoundationRunLoopCurrent() -> Never { unsupported("RunLoop.current") }

@_silgen_name("$s10Foundation7RunLoopC3run4mode6beforeSbAC4ModeV_0A10Essentials4DateVtF")
public func wardFoundationRunLoopRun() -> Never { unsupported("RunLoop.run(mode:before:)") }

@_silgen_name("$s10Foundation17JSONSerializationCMa")
public func wardFoundationJSONSerializationMetadata() -> Never { unsupported("JSONSerialization") }

@_silgen_name(
    "$s10Foundation17JSONSerializationC10jsonObject4with7optionsyp0A10Essentials4DataV_AC14ReadingOptionsVtKFZ"
)
public func wardFoundationJSONObject() -> Never { unsupported("JSONSerialization.jsonObject(with:options:)") }

private func unsupported(_ call: String) -> Never {
    fatalError("Ward's release build has no Foundation for \(call) (Sources/ward/Support/FoundationCalls.swift)")
}
#endif
