import ArgumentParser
import ContactCenterSim
import Foundation
import UnixSignals

/// The run: the simulator started from the options, announced on stdout, stopped by SIGTERM or SIGINT.
extension AttendantSim {
    func run() async throws {
        var configuration = SimulatorConfiguration(
            sipPort: self.sipPort,
            httpPort: self.httpPort,
            domain: self.domain,
            tokenLifetime: .seconds(self.tokenLifetime),
            cxone: CXoneGatewaySettings(
                brandId: self.cxoneBrand,
                channelId: self.cxoneChannel,
                isLiveChat: self.cxoneLiveChat,
                isAuthorizationEnabled: self.cxoneOauth,
                hasMultipleThreadsPerEndUser: self.cxoneMultiThread,
                isOnline: !self.cxoneOffline,
                autoReply: self.cxoneAutoReply,
                welcomeMessage: self.cxoneWelcome
            )
        )
        if self.cxonePreChatForm { configuration.cxone.preContactForm = CXoneGatewaySettings.samplePreChatForm }
        configuration.cxone.greeting = self.cxoneGreeting
        configuration.cxone.accessTokenLifetime = self.cxoneTokenLifetime
        configuration.cxone.allowsTranscript = !self.cxoneNoTranscript
        configuration.cxone.securedSessions = self.cxoneSecuredSessions
        configuration.cxone.greetingOffer = self.cxoneGreetingOffer
        configuration.gms = GMSServerSettings(
            serviceName: self.gmsService,
            agentNickname: self.gmsAgentName,
            greeting: self.gmsGreeting.isEmpty ? nil : self.gmsGreeting,
            greetingDelay: .milliseconds(Int(self.gmsGreetingDelay * 1000)),
            autoReply: self.gmsAutoReply,
            connectHold: .milliseconds(Int(self.gmsConnectHold * 1000)),
            clientWindow: .milliseconds(Int(self.gmsClientWindow * 1000))
        )
        configuration.gms.webSocket = !self.gmsNoWebsocket
        configuration.genesys = GenesysMessagingSettings(
            deploymentId: self.genesysDeployment,
            authEnabled: self.genesysAuth,
            disconnectReadOnly: !self.genesysDisconnectSend,
            autoReply: self.genesysAutoReply,
            greeting: self.genesysGreeting
        )
        configuration.genesys.sessionDurationSeconds = self.genesysSessionDuration
        if let pair = self.genesysAuthCode?.split(separator: "=").map(String.init), pair.count == 2 {
            configuration.genesys.oauthCodes[pair[0]] = pair[1]
        }
        configuration.karte = KarteServerSettings(appKey: self.karteAppKey, gzipAnswers: !self.karteNoGzipAnswers)
        if let file = self.karteCampaigns {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("cannot read the KARTE campaigns file \(file); check the path and its permissions")
            }
            do throws(SimulatorError) {
                configuration.karte.campaigns = try KarteCampaign.list(fromJSON: Array(data), source: file)
            } catch {
                throw ValidationError(error.message)
            }
        }
        if let file = self.signingKeyFile {
            guard var key = FileManager.default.contents(atPath: file).map(Array.init) else {
                throw ValidationError("cannot read the signing key file \(file); check the path and its permissions")
            }
            while key.last == UInt8(ascii: "\n") || key.last == UInt8(ascii: "\r") { key.removeLast() }
            guard !key.isEmpty else { throw ValidationError("the signing key file \(file) is empty") }
            configuration.signingKey = key
        }
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let simulator = try await ContactCenterSimulator.start(configuration)
        let announcement: [String: Any] = [
            "sip_port": simulator.sipPort,
            "http_port": simulator.httpPort,
            "token_url": simulator.tokenURL,
            "registrar_udp": simulator.registrarURI(transport: "udp"),
            "registrar_tcp": simulator.registrarURI(transport: "tcp"),
            "domain": configuration.domain,
            "cxone_socket": simulator.cxoneEndpoints.socket,
            "cxone_chat": simulator.cxoneEndpoints.chat,
            "cxone_brand": self.cxoneBrand,
            "cxone_channel": self.cxoneChannel,
            "gms_cometd": simulator.gms.cometdURL,
            "gms_base": simulator.gms.baseURL,
            "gms_service": self.gmsService,
            "genesys_endpoint": simulator.genesysEndpoints.endpoint,
            "genesys_deployment": simulator.genesysEndpoints.deploymentId,
            "karte_base": simulator.karte.baseURL,
            "karte_app_key": simulator.karte.appKey,
        ]
        let data = try JSONSerialization.data(withJSONObject: announcement, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(data + Data("\n".utf8))

        await withTaskGroup(of: Void.self) { group in
            if let user = self.ring {
                group.addTask { await Ringer(simulator: simulator, user: user, every: self.ringEvery, cancelAfter: self.cancelAfter).run() }
            }
            for await _ in signals { break }
            group.cancelAll()
        }
        await simulator.stop()
    }
}
