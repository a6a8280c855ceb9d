import WardCore

/// A runner that records what it ran: `fail…` fails, `lock` and `logout` ask for those.
public final class ScriptedRunner: CommandRunner {
    public private(set) var ran: [Line] = []
    public private(set) var answers: [String?] = []
    public var onRun: ((Line) -> Void)?
    public private(set) var wipes = 0
    public private(set) var signOns: [String] = []
    public var prompt: String { "ward> " }

    public init() {}

    public func run(_ line: Line) -> CommandResult {
        ran.append(line)
        onRun?(line)
        switch line.text {
        case let text where text.hasPrefix("fail"): return .failed
        case "lock": return .lock
        case "ask": return .ask("Why?")
        case "logout": return .signOff
        default: return .succeeded
        }
    }

    public func answer(_ text: String?) -> CommandResult {
        answers.append(text)
        return .failed
    }

    public func completions(for word: String, before: String) -> [String] { [] }
    public func signedOn(user: String, role: Role) { signOns.append(user) }
    public func wipe() { wipes += 1 }
}
