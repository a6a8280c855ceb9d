import Foundation
import Glibc
import Testing

/// Record text that tries to take over the reader's terminal: a bundle whose every
/// text field carries escape sequences, overwrites, C1 and bidi controls, and a note that does
/// the same, shown through the real binary. The raw bytes written to the pty, and to batch
/// output, must carry none of them, and must show them in Ward's visible notation.
@Suite(.serialized) struct HostileRecordTextTests {
    static let esc = "\u{1B}"
    static let bel = "\u{07}"
    /// Every payload of the issue. NUL comes last: an importer that cuts at NUL keeps the rest.
    static let payload =
        "\(esc)]0;title\(bel) \(esc)[2J \(esc)]52;c;cm0gLXJmIH4=\(bel) safe\rEVIL ab\u{08}\u{08}X "
        + "\u{9B}31m \u{85} \u{202E}rtl \u{2066}iso nul\u{0}byte"
    /// How Ward shows each payload.
    static let shown = [
        #"\e]0;title\a"#, #"\e[2J"#, #"\e]52;c;cm0gLXJmIH4=\a"#, #"safe\rEVIL"#, #"ab\b\bX"#, #"\u009B31m"#,
        #"\u0085"#, #"\u202Ertl"#, #"\u2066iso"#, #"nul\0byte"#,
    ]
    static let mrn = "HOSTILE-1"

    /// A bundle for one restricted patient whose every kept text field carries the payload.
    static func bundle() throws -> Data {
        let p = payload
        let subject = ["reference": "urn:uuid:pt-hostile"]
        func concept(_ code: String) -> [String: Any] {
            ["coding": [["code": code, "display": "D" + code + p]], "text": "T" + code + p]
        }
        let entries: [[String: Any]] = [
            [
                "fullUrl": "urn:uuid:pt-hostile",
                "resource": [
                    "resourceType": "Patient", "id": "pt-hostile", "gender": "female", "birthDate": "1970-03-04",
                    "name": [["given": ["Mal" + p], "family": "Hostile" + p]],
                    "telecom": [["system": "phone", "value": "555" + p]],
                    "address": [["line": ["1 Main" + p], "city": "City" + p, "state": "MA", "postalCode": "02108"]],
                    "identifier": [
                        [
                            "type": [
                                "coding": [["system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "MR"]]
                            ],
                            "value": mrn,
                        ]
                    ],
                    "meta": ["security": [["code": "R"]]],
                ],
            ],
            [
                "resource": [
                    "resourceType": "AllergyIntolerance", "criticality": "high", "category": ["food"],
                    "clinicalStatus": ["coding": [["code": "active"]]], "code": concept("A1"),
                    "patient": subject, "recordedDate": "2001-02-03",
                ]
            ],
            [
                "resource": [
                    "resourceType": "Condition", "clinicalStatus": ["coding": [["code": "active"]]],
                    "code": concept("C1"), "subject": subject, "onsetDateTime": "2010-01-02T03:04:05Z",
                ]
            ],
            [
                "resource": [
                    "resourceType": "MedicationRequest", "status": "active", "medicationCodeableConcept": concept("M1"),
                    "subject": subject, "authoredOn": "2010-01-02T03:04:05Z",
                    "dosageInstruction": [["text": "Dose" + p]],
                ]
            ],
            [
                "resource": [
                    "resourceType": "Encounter", "class": ["code": "AMB"], "type": [concept("E1")],
                    "reasonCode": [concept("R1")], "subject": subject,
                    "period": ["start": "2020-05-06T07:00:00Z", "end": "2020-05-06T07:30:00Z"],
                ]
            ],
            [
                "resource": [
                    "resourceType": "Observation", "status": "final",
                    "category": [["coding": [["code": "vital-signs"]]]],
                    "code": concept("V1"), "subject": subject, "effectiveDateTime": "2020-05-06T07:08:09Z",
                    "valueQuantity": ["value": 72, "unit": "U" + p],
                ]
            ],
            [
                "resource": [
                    "resourceType": "Observation", "status": "final",
                    "category": [["coding": [["code": "laboratory"]]]],
                    "code": concept("L1"), "subject": subject, "effectiveDateTime": "2020-05-06T07:08:09Z",
                    "valueString": "Lab" + p,
                ]
            ],
            [
                // A report whose only text is a presented form, decoded from base64.
                "resource": [
                    "resourceType": "DiagnosticReport", "status": "final", "code": concept("D1"),
                    "subject": subject, "effectiveDateTime": "2020-05-06T07:08:09Z",
                    "presentedForm": [
                        ["contentType": "text/plain", "data": Data(("Form" + p).utf8).base64EncodedString()]
                    ],
                ]
            ],
        ]
        return try JSONSerialization.data(
            withJSONObject: ["resourceType": "Bundle", "type": "collection", "entry": entries])
    }

    // MARK: Checks on raw bytes

    /// Every payload control that must never reach a terminal, as a description and a test.
    static func forbidden(in bytes: [UInt8], allowingWardsOwn: Bool) -> [String] {
        var problems: [String] = []
        var stream = bytes
        if allowingWardsOwn { stream = removingWardsOwnSequences(stream) }
        for (index, byte) in stream.enumerated() {
            switch byte {
            case 0x1B: problems.append("ESC at \(index): \(context(stream, index))")
            case 0x07: problems.append("BEL at \(index)")
            case 0x08: problems.append("BS at \(index): \(context(stream, index))")
            case 0x00: problems.append("NUL at \(index)")
            case 0x0D where index + 1 >= stream.count || stream[index + 1] != 0x0A:
                // readline's own, which overwrite nothing: a CR at column 0 (right after a line
                // feed), or one right before another CR (at Ctrl-D it writes CR, then CR LF).
                if allowingWardsOwn, (index > 0 && stream[index - 1] == 0x0A) || stream[index + 1] == 0x0D { break }
                problems.append("CR not in CRLF at \(index): \(context(stream, index))")
            case 0x7F: problems.append("DEL at \(index)")
            case 0xC2 where index + 1 < stream.count && (0x80...0x9F).contains(stream[index + 1]):
                problems.append("C1 U+00\(String(stream[index + 1], radix: 16)) at \(index)")
            case 0xE2 where index + 2 < stream.count:
                let (b1, b2) = (stream[index + 1], stream[index + 2])
                if (b1 == 0x80 && (0xAA...0xAE).contains(b2)) || (b1 == 0x81 && (0xA6...0xA9).contains(b2)) {
                    problems.append("bidi control at \(index)")
                }
            default: break
            }
        }
        return problems
    }

    /// The escape sequences Ward and readline write themselves, each exactly: Ward's clear
    /// (`ESC[H ESC[2J ESC[3J`), focus reports on and off, and its colours (`TerminalStyle`: a
    /// table header's bold, the idle warning's yellow, the reset); readline's bracketed paste and
    /// keypad modes, and its redraw of the line (`CR` then `ESC[K`, cursor moves). Removed
    /// before the check, so that any ESC left came from somewhere else.
    static func removingWardsOwnSequences(_ bytes: [UInt8]) -> [UInt8] {
        let own = [
            "\u{1B}[H\u{1B}[2J\u{1B}[3J", "\u{1B}[?1004h", "\u{1B}[?1004l", "\u{1B}[?2004h", "\u{1B}[?2004l",
            "\u{1B}[?1h\u{1B}=", "\u{1B}[?1l\u{1B}>", "\r\u{1B}[K", "\u{1B}[K",
            "\u{1B}[1m", "\u{1B}[1;33m", "\u{1B}[0m",
        ].map { Array($0.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        outer: while index < bytes.count {
            if bytes[index] == 0x1B || bytes[index] == 0x0D {
                for sequence in own where bytes[index...].starts(with: sequence) {
                    index += sequence.count
                    continue outer
                }
            }
            out.append(bytes[index])
            index += 1
        }
        return out
    }

    static func context(_ bytes: [UInt8], _ index: Int) -> String {
        let slice = bytes[max(0, index - 20)..<min(bytes.count, index + 20)]
        return String(decoding: slice, as: UTF8.self).debugDescription
    }

    static func expectShown(_ bytes: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(decoding: bytes, as: UTF8.self)
        for notation in shown {
            #expect(text.contains(notation), "\(what) does not show \(notation)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Tests

    @Test func theShell_showsRecordControlsVisibly_andWritesNoneOfThemToThePty() throws {
        let home = try HostileHome()
        let harness = home.harness
        let raw = harness.directory.appendingPathComponent("pane.raw").path
        try harness.tmux(["pipe-pane", "-o", "cat >> " + TerminalHarness.shellQuote(raw)])
        try harness.signOn()
        try harness.enter("find hostile")
        try harness.waitFor("HOSTILE-1")
        try harness.enter("open \(Self.mrn) --reason checking")
        try harness.waitFor("Opened HOSTILE-1")
        // A command that fails after each one marks its end on the screen.
        for command in [
            "show summary", "show allergies", "show meds", "show problems", "show vitals", "show labs",
            "show encounters", "show notes", "show notes --all", "show reports", "charts",
        ] {
            let marker = "done-" + command.replacingOccurrences(of: " ", with: "-")
            try harness.enter(command)
            try harness.enter(marker)
            try harness.waitFor("unknown command '\(marker)'")
        }
        try harness.enter("logout")
        #expect(try harness.waitForExit() == 0)
        try harness.stopPipingPane(to: raw)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        #expect(!bytes.isEmpty)
        let problems = Self.forbidden(in: bytes, allowingWardsOwn: true)
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(String(decoding: bytes, as: UTF8.self).contains("\u{1B}[1m"), "the headers are in colour")
        Self.expectShown(bytes, "the pane")
        // Every section printed something of the payload, not only its heading.
        let text = String(decoding: bytes, as: UTF8.self)
        for field in [
            "Mal", "Hostile", "1 Main", "City", "555", "TA1", "TC1", "TM1", "Dose", "TE1", "TR1", "TV1", "TL1",
            "Lab", "Note", "Form",
        ] {
            #expect(text.contains(field + #"\e]0;title\a"#), "\(field) is not shown")
        }
    }

    @Test func aPluginsRefusal_isShownWithItsControlsEscaped() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ward-plugin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plugin = directory.appendingPathComponent("hostile.py").path
        // Refuses every line with a message that carries the payloads (JSON escapes them).
        try """
        import json, sys
        while True:
            raw = sys.stdin.readline()
            if not raw:
                break
            message = json.loads(raw)
            if message.get("type") == "hello":
                print(json.dumps({"id": 0, "protocol": "2.0"}), flush=True)
            if message.get("type") != "event":
                continue
            text = r"no\\u001b]0;title\\u0007 \\u001b[2J safe\\rEVIL \\u009b31m \\u202ertl"
            sys.stdout.write('{"id": %d, "action": "deny", "message": "%s"}\\n' % (message["id"], text))
            sys.stdout.flush()
        """.write(toFile: plugin, atomically: true, encoding: .utf8)
        let harness = try TerminalHarness(
            site: """
                [[plugin]]
                name = "external"
                command = ["python3", "\(plugin)"]
                events = ["line"]
                timeout = "5s"
                """ + TerminalHarness.unguarded
        )
        let raw = harness.directory.appendingPathComponent("pane.raw").path
        try harness.tmux(["pipe-pane", "-o", "cat >> " + TerminalHarness.shellQuote(raw)])
        try harness.signOn()
        try harness.enter("whoami")
        try harness.waitFor("ward: no")
        try harness.press("C-d")
        #expect(try harness.waitForExit() == 0)
        try harness.stopPipingPane(to: raw)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let problems = Self.forbidden(in: bytes, allowingWardsOwn: true)
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"ward: no\e]0;title\a \e[2J safe\rEVIL \u009B31m \u202Ertl"#))
    }

    @Test func batchTextAndJSON_auditShowAndUserList_writeNoControls() throws {
        let home = try HostileHome()
        let script = try home.batchScript([
            "find hostile", "open \(Self.mrn) --reason checking", "show summary", "show allergies", "show meds",
            "show problems", "show vitals", "show labs", "show encounters", "show notes", "show reports",
            "open \"NO\(Self.payload)\"",
        ])

        let text = try home.batch(script, format: "text")
        #expect(text.status != 0)  // the last line fails, quoting the typed MRN
        for (name, bytes) in [("batch stdout", text.out), ("batch stderr", text.err)] {
            let problems = Self.forbidden(in: bytes, allowingWardsOwn: false)
            #expect(problems.isEmpty, "\(name): \(problems.prefix(10))")
        }
        Self.expectShown(text.out, "batch text")
        #expect(String(decoding: text.err, as: UTF8.self).contains(#"NO\e]0;title\a"#))

        let json = try home.batch(script, format: "json")
        let problems = Self.forbidden(in: json.out + json.err, allowingWardsOwn: false)
        #expect(problems.isEmpty, "batch json: \(problems.prefix(10))")
        let jsonText = String(decoding: json.out, as: UTF8.self)
        for escape in [#"\u001b]0;title\u0007"#, #"\u009b31m"#, #"\u0085"#, #"\u202ertl"#, #"\u2066iso"#] {
            #expect(jsonText.lowercased().contains(escape), "batch json lacks \(escape)")
        }
        // A reader decodes the same text that was imported.
        let objects = jsonText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count == 12)
        // Typed rows: the payload is in the strings, and in the codes' displays.
        let rows = objects.flatMap { ($0["rows"] as? [[String: Any]]) ?? [] }
        #expect(
            rows.contains { $0.values.contains { ($0 as? String)?.contains("\u{1B}]52;c;cm0gLXJmIH4=\u{07}") == true } }
        )
        #expect(rows.contains { ($0["conclusion"] as? String)?.hasPrefix("Form\u{1B}]0;title\u{07}") == true })
        #expect(rows.contains { (($0["code"] as? [String: String])?["display"])?.contains("\u{202E}rtl") == true })

        let auditText = try home.run(["audit", "show"])
        #expect(auditText.status == 0)
        let auditProblems = Self.forbidden(in: auditText.out + auditText.err, allowingWardsOwn: false)
        #expect(auditProblems.isEmpty, "audit show: \(auditProblems.prefix(10))")
        #expect(String(decoding: auditText.out, as: UTF8.self).contains(#"why\e]0;title\a"#))

        let auditJSON = try home.run(["audit", "show", "--format", "json"])
        #expect(auditJSON.status == 0)
        let auditJSONProblems = Self.forbidden(in: auditJSON.out + auditJSON.err, allowingWardsOwn: false)
        #expect(auditJSONProblems.isEmpty, "audit show json: \(auditJSONProblems.prefix(10))")
        #expect(String(decoding: auditJSON.out, as: UTF8.self).lowercased().contains(#"\u202ertl"#))

        // The executable's own error writer (the argument parser's, and `ward: …`) quotes values.
        let badOption = try home.run(["audit", "show", "--since", "x" + Self.payload])
        #expect(badOption.status == 64)
        #expect(Self.forbidden(in: badOption.out + badOption.err, allowingWardsOwn: false).isEmpty)
        #expect(String(decoding: badOption.err, as: UTF8.self).contains(#"x\e]0;title\a"#))
        let badName = try home.run(["user", "remove", "ev\u{1B}[2Jil"])
        #expect(badName.status != 0)
        #expect(Self.forbidden(in: badName.out + badName.err, allowingWardsOwn: false).isEmpty)
        #expect(String(decoding: badName.err, as: UTF8.self).contains(#"ev\e[2Jil"#))

        let users = try home.run(["user", "list"])
        #expect(users.status == 0)
        #expect(Self.forbidden(in: users.out + users.err, allowingWardsOwn: false).isEmpty)
        #expect(String(decoding: users.out, as: UTF8.self).contains(TerminalHarness.user))
    }
}

/// A home with user alice and the audit log, the hostile bundle imported, and a note written
/// through batch mode whose text and break-glass reason carry the payload.
final class HostileHome {
    let harness: TerminalHarness
    let passwordFile: String
    var environment: [String: String] {
        [
            "WARD_HOME": harness.home.path, "WARD_SITE": harness.siteFile.path, "HOME": harness.directory.path,
            "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
        ]
    }

    init() throws {
        // Colour on (an empty NO_COLOR is no request; the test runner sets NO_COLOR=1), so the
        // check allows exactly Ward's own colour sequences and sees them used.
        harness = try TerminalHarness(
            [],
            site: "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded,
            environment: ["NO_COLOR": ""],
            columns: 400,
            rows: 60
        )
        passwordFile = harness.directory.appendingPathComponent("password").path
        let bundle = harness.directory.appendingPathComponent("hostile.json")
        try HostileRecordTextTests.bundle().write(to: bundle)
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["import", bundle.path], environment: environment)
        guard TerminalHarness.lastStatus == 0 else {
            throw TerminalHarness.HarnessError.failed("ward import: exit \(TerminalHarness.lastStatus)")
        }
        try (TerminalHarness.password + "\n").write(toFile: passwordFile, atomically: false, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let payload = HostileRecordTextTests.payload
        let script = try batchScript([
            "open \(HostileRecordTextTests.mrn) --reason \"why\(payload)\"", "note \"Note\(payload)\"",
        ])
        let out = try batch(script, format: "text")
        guard out.status == 0 else { throw TerminalHarness.HarnessError.failed("note: exit \(out.status)") }
    }

    func batchScript(_ lines: [String]) throws -> String {
        let path = harness.directory.appendingPathComponent("script-\(UUID().uuidString).ward").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs a batch script; standard output and error as raw bytes.
    func batch(_ script: String, format: String) throws -> (out: [UInt8], err: [UInt8], status: Int32) {
        try run([
            "--batch", script, "--user", TerminalHarness.user, "--password-file", passwordFile, "--format", format,
        ])
    }

    /// Runs `ward ARGS`; standard output and error as raw bytes.
    func run(_ arguments: [String]) throws -> (out: [UInt8], err: [UInt8], status: Int32) {
        let run = try TerminalHarness.runToEnd(arguments, environment: environment, capturingIn: harness.directory)
        return (run.out, run.err, run.status)
    }
}
