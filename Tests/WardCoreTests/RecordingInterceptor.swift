import WardCore

/// An interceptor that records what it saw and answers with a scripted disposition.
/// Instances carry names of their own, so that a test can chain several.
final class RecordingInterceptor: Plugin {
    static let name = "recording"
    static let summary = "Records what it saw and answers as scripted."
    let name: String
    var seen: [Event] = []
    /// The status the chain was removed with, once it was.
    var removedWith: ExitStatus?
    var answer: (Event, PluginContext) -> Disposition

    init(_ name: String, answer: @escaping (Event, PluginContext) -> Disposition = { _, _ in .pass }) {
        self.name = name
        self.answer = answer
    }

    /// One that passes everything, named after its table.
    convenience init(settings: PluginSettings, environment: PluginEnvironment) {
        self.init(settings.name)
    }

    func intercept(_ event: Event, context: PluginContext) -> Disposition {
        seen.append(event)
        return answer(event, context)
    }

    func removed(status: ExitStatus, context: PluginContext) { removedWith = status }
}

extension Event {
    static func typed(_ text: String) -> Event { .key(KeyPress(Array(text.utf8))) }
}
