extension String {
    /// The value in double quotes, safe to print in an error message: printable ASCII as is,
    /// everything else escaped (`\u{1B}`, `\0`, `\n`), cut after 64 characters.
    ///
    /// A bundle is hostile input and its values reach a terminal when an error quotes them (an id,
    /// an MRN, a key). Escaping here, where the message is made, keeps a control sequence from
    /// being sent even by a front end that prints errors raw; only ASCII is kept so that C1 and
    /// bidi controls are shown as their numbers too.
    var quotedForMessage: String {
        var quoted = "\""
        for (count, scalar) in unicodeScalars.enumerated() {
            if count == 64 {
                quoted += "…"
                break
            }
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\0": quoted += "\\0"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case " "..."~": quoted.unicodeScalars.append(scalar)
            default: quoted += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return quoted + "\""
    }
}

extension String {
    /// True when every byte is printable ASCII other than space (0x21–0x7E) and there is one:
    /// what Ward accepts as an MRN or a patient's FHIR id.
    var isPrintableASCIIWord: Bool {
        !isEmpty && utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
