import WardCore

/// An interceptor that records what it saw and answers with a scripted disposition.
final class RecordingInterceptor: Interceptor {
    let name: String
    var seen: [Event] = []
    var answer: (Event, PluginContext) -> Disposition

    init(_ name: String, answer: @escaping (Event, PluginContext) -> Disposition = { _, _ in .pass }) {
        self.name = name
        self.answer = answer
    }

    func intercept(_ event: Event, context: PluginContext) -> Disposition {
        seen.append(event)
        return answer(event, context)
    }
}

extension Event {
    static func typed(_ text: String) -> Event { .key(KeyPress(Array(text.utf8))) }
}
