import Foundation
import Testing
import WardCore

/// `PathJoin` replaced `NSString.appendingPathComponent`; it must join as that joined.
@Suite struct PathJoinTests {
    @Test(arguments: [
        ("/home/ward", "records.sqlite", "/home/ward/records.sqlite"),
        ("/home/ward/", "records.sqlite", "/home/ward/records.sqlite"),
        ("/", "tmp", "/tmp"),
        ("", "a/b.json", "a/b.json"),
        ("import", "", "import"),
        ("dir", "sub/ndjson/Patient.ndjson", "dir/sub/ndjson/Patient.ndjson"),
        ("données", "dossier é.json", "données/dossier é.json"),
    ])
    func joinsAsNSStringJoined(_ path: String, _ component: String, _ joined: String) {
        #expect(PathJoin.appending(component, to: path) == joined)
        #expect(PathJoin.appending(component, to: path) == (path as NSString).appendingPathComponent(component))
    }
}
