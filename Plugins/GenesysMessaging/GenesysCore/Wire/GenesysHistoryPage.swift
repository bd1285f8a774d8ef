#if canImport(AttendantPluginKit)
import AttendantPluginKit
#endif

/// One page of `GET https://api.{domain}/api/v2/webmessaging/messages?pageNumber=&pageSize=` (SDK
/// `MessageEntityList` in `shyrka/receive/StructuredMessage.kt`, `WebMessagingApi.getMessages`). Page 1
/// holds the newest messages; the SDK asks 25 a page and counts `total` to know it reached the start.
package struct GenesysHistoryPage: Sendable, Hashable {
    /// SDK `DEFAULT_PAGE_SIZE` (core/MessageStore.kt).
    package static let defaultPageSize = 25

    package var entities: [GenesysStructuredMessage]
    package var pageSize: Int
    package var pageNumber: Int
    package var total: Int
    package var pageCount: Int

    package init(entities: [GenesysStructuredMessage], pageSize: Int, pageNumber: Int, total: Int, pageCount: Int) {
        self.entities = entities
        self.pageSize = pageSize
        self.pageNumber = pageNumber
        self.total = total
        self.pageCount = pageCount
    }

    package init(decoding bytes: some Collection<UInt8>, limits: GenesysWireLimits = .historyPage) throws(GenesysWireError) {
        let fields = try GenesysFields(limits.parse(bytes, what: "history page"), path: "")
        var entities: [GenesysStructuredMessage] = []
        for (value, path) in try fields.array("entities") {
            entities.append(try GenesysStructuredMessage(GenesysFields(value, path: path)))
        }
        self.init(
            entities: entities,
            pageSize: try fields.integer("pageSize"),
            pageNumber: try fields.integer("pageNumber"),
            total: try fields.integer("total"),
            pageCount: try fields.integer("pageCount")
        )
    }
}
