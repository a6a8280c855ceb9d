import Foundation
import Testing
import WardCore

private func parse(_ text: String) throws -> SitePolicy {
    try SitePolicy.parse(text, file: "site.toml", plugins: standInPlugins)
}

private func messages(_ text: String) -> [String] {
    configError { try parse(text) }?.all.map(\.description) ?? []
}

/// `[session] banner`, `banner-file` and `admin-group`: read with the site file, refused with
/// the file and line when the notice could not be shown as the site wrote it.
@Suite struct SessionAccessPolicyTests {
    @Test func banner_isReadFromTheSessionTable() throws {
        let policy = try parse(
            "[session]\nidle-timeout = \"5m\"\nbanner = \"Authorized use only.\\nActivity is logged.\"\n"
        )
        #expect(policy.access.banner == "Authorized use only.\nActivity is logged.")
        #expect(policy.access.bannerLine == 3)
        #expect(policy.sitePolicy.idleTimeout == .seconds(300))
    }

    @Test func noBanner_byDefault() throws {
        #expect(try parse("[session]\nidle-timeout = \"5m\"\n").access == SessionAccessPolicy())
    }

    @Test func bannerFile_isRead_whenOthersCannotWriteIt() throws {
        let scratch = ScratchHome()
        let path = scratch.path + "/notice.txt"
        _ = FileManager.default.createFile(
            atPath: path,
            contents: Data("Use is monitored.\n".utf8),
            attributes: [.posixPermissions: 0o644]
        )
        #expect(try parse("[session]\nbanner-file = \"\(path)\"\n").access.banner == "Use is monitored.\n")
    }

    @Test func bannerFile_writableByOthers_isRefused_withItsLine() throws {
        let scratch = ScratchHome()
        let path = scratch.path + "/notice.txt"
        _ = FileManager.default.createFile(
            atPath: path,
            contents: Data("x\n".utf8),
            attributes: [.posixPermissions: 0o666]
        )
        #expect(
            messages("[session]\n\nbanner-file = \"\(path)\"\n") == [
                "site.toml:3: banner-file \"\(path)\" may be written by its group or others (mode 666); chmod go-w it."
            ]
        )
    }

    @Test func bannerFile_missingRelativeOrTooLong_isRefused() throws {
        let scratch = ScratchHome()
        #expect(
            messages("[session]\nbanner-file = \"\(scratch.path)/none\"\n").first?.contains("cannot be read") == true
        )
        #expect(messages("[session]\nbanner-file = \"notice.txt\"\n").first?.contains("not an absolute path") == true)
        let long = scratch.path + "/long.txt"
        _ = FileManager.default.createFile(
            atPath: long,
            contents: Data(repeating: UInt8(ascii: "a"), count: SessionAccessPolicy.maximumBannerLength + 1),
            attributes: [.posixPermissions: 0o600]
        )
        #expect(messages("[session]\nbanner-file = \"\(long)\"\n").first?.contains("is longer than 8192 bytes") == true)
        let inline = String(repeating: "a", count: SessionAccessPolicy.maximumBannerLength + 1)
        #expect(messages("[session]\nbanner = \"\(inline)\"\n").first?.contains("at most 8192 bytes") == true)
    }

    @Test func bannerAndBannerFile_together_areRefused() {
        #expect(
            messages("[session]\nbanner = \"a\"\nbanner-file = \"/etc/issue\"\n") == [
                "site.toml:3: give 'banner' or 'banner-file', not both."
            ]
        )
    }

    @Test func adminGroup_mustBeAGroupOfThisSystem() throws {
        #expect(try parse("[session]\nadmin-group = \"root\"\n").access.adminGroup == "root")
        #expect(messages("[session]\nadmin-group = \"no-such-group-here\"\n").first?.hasPrefix("site.toml:2:") == true)
    }

    @Test func banner_inAUserTable_isAnUnknownKey() {
        #expect(messages("[user.alice]\nbanner = \"x\"\n").first?.contains("banner") == true)
    }
}
