import Foundation

/// The real-shaped frames and bodies in Fuzz/CXoneEvents/seeds (the fuzz target's seed corpus), built from
/// the field lists of the public CXone mobile SDK's DTOs (nice-devone/nice-cxone-mobile-sdk-ios,
/// `Sources/Models/Internal/Message/MessageDTO.swift`, `.../Thread/Received/ThreadRecovered/
/// ThreadRecoveredEventPostbackData.swift`, `.../Event/EventInS3DTO.swift`, `.../Channel/ChannelConfigurationDTO.swift`,
/// `.../Message/Sent/SendMessageEventDataDTO.swift`, ...): that repository ships no JSON fixtures.
enum WireSamples {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/CXoneEvents/seeds")

    static func bytes(_ name: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
            return []
        }
        return Array(data)
    }

    static var all: [[UInt8]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map(Self.bytes)
    }
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}

extension String {
    var bytes: [UInt8] { Array(self.utf8) }
}
