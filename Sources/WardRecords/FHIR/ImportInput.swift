import FoundationEssentials
import WardCore

/// One input `ward import` reads whole, in one transaction: all of it is imported or none.
public enum ImportInput: Equatable, Sendable {
    /// A FHIR bundle file.
    case bundle(String)
    /// The NDJSON files of one bulk-data export; `name` (its directory, or its first file) is
    /// what an error about the whole export names.
    case export(name: String, files: [String])

    /// The inputs under `paths`: each `*.ndjson` (or `*.ndjson.gz`) file named is part of one
    /// export, every other file a bundle; a directory's `*.json` files (recursively, sorted, so
    /// runs are repeatable) are bundles and its `*.ndjson` and `*.ndjson.gz` files one export. A path that does not exist, or a
    /// directory with nothing to import, is a failure.
    public static func inputs(in paths: [String]) -> (inputs: [ImportInput], failures: [StoreError]) {
        var inputs: [ImportInput] = []
        var failures: [StoreError] = []
        var named: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                failures.append(.unreadable(path: path))
                continue
            }
            guard isDirectory else {
                // A FIFO, a device or a socket (or a link to one) is refused before anything is read.
                guard ImportFile.isRegular(path) else {
                    failures.append(.notRegularFile(path: path))
                    continue
                }
                if isNDJSON(path) { named.append(path) } else { inputs.append(.bundle(path)) }
                continue
            }
            guard let relatives = try? manager.subpathsOfDirectory(atPath: path) else {
                failures.append(.unreadable(path: path))
                continue
            }
            var bundles: [String] = []
            var lines: [String] = []
            for relative in relatives {
                let file = PathJoin.appending(relative, to: path)
                if relative.lowercased().hasSuffix(".json") { bundles.append(file) }
                if isNDJSON(relative) { lines.append(file) }
            }
            if bundles.isEmpty && lines.isEmpty { failures.append(.nothingToImport(path: path)) }
            inputs += bundles.sorted().map(ImportInput.bundle)
            if !lines.isEmpty { inputs.append(.export(name: path, files: lines.sorted())) }
        }
        if let first = named.first {
            let name = named.count == 1 ? first : "\(first) and \(named.count - 1) more NDJSON files"
            inputs.append(.export(name: name, files: named))
        }
        return (inputs, failures)
    }

    private static func isNDJSON(_ path: String) -> Bool {
        let name = path.lowercased()
        return name.hasSuffix(".ndjson") || name.hasSuffix(".ndjson.gz")
    }
}
