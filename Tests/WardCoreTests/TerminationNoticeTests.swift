import Glibc
import Testing
import WardCore

/// Whether `TerminationNotice.fd` would wake a `poll` now.
private func isReadable() -> Bool {
    var descriptor = pollfd(fd: TerminationNotice.fd, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, 0) == 1
}

@Suite struct TerminationNoticeTests {
    @Test func theDescriptor_wakesAPoll_onlyOncePosted_andUntilCleared() {
        #expect(TerminationNotice.fd >= 0)
        #expect(!isReadable())
        TerminationNotice.post()
        TerminationNotice.post()  // the watchdog and a test may both post: still one notice
        #expect(isReadable())
        TerminationNotice.clear()
        #expect(!isReadable())
    }
}
