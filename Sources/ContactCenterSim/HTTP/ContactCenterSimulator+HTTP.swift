/// The HTTP endpoints: `/token`, `/control/…`, the CXone gateway's (see ``CXoneGateway/route(_:)``) and
/// GMS's (``GMSChatServer/route(_:)``, ``GMSChatServer/controlRoute(_:)``) and KARTE's
/// (``KarteTrackServer/trackRoute(_:)``, ``KarteTrackServer/controlRoute(_:)``).
extension ContactCenterSimulator {
    func route(_ request: HTTPRouteRequest) async -> HTTPReply {
        switch (request.method, request.path) {
        case ("GET", "/token"), ("POST", "/token"):
            if self.configuration.tokenDelay > .zero { try? await Task.sleep(for: self.configuration.tokenDelay) }
            return self.tokenReply(request)
        case ("POST", "/control/fault"):
            return self.faultReply(request)
        case ("POST", "/control/clear-faults"):
            self.clearFaults()
            return .json(["ok": true])
        case ("POST", "/control/refuse-renewals"):
            let on = request.query["on"] ?? "1"
            guard on == "1" || on == "0" else { return .error(400, "on must be 1 or 0") }
            self.setRefusesRenewals(on == "1")
            return .json(["refuse_renewals": on == "1"])
        case ("POST", "/control/call"):
            guard let user = request.query["user"], !user.isEmpty else { return .error(400, "missing user parameter: /control/call?user=NAME") }
            do {
                let call = try await self.call(
                    user: user,
                    fromDisplayName: request.query["from-name"] ?? "Grace Hopper",
                    fromURI: request.query["from"] ?? "sip:grace@\(self.configuration.domain)"
                )
                return .json(["call_id": call.callID, "number": call.number])
            } catch let error as SimulatorError where error.code == .notRegistered {
                return .error(404, error.message)
            } catch {
                return .error(500, "\(error)")
            }
        case ("GET", "/control/calls"):
            let calls = self.placedCalls.map { Self.json($0.summary) }
            return .json(["calls": calls])
        case ("POST", "/control/restart"):
            let keep = request.query["keep-bindings"] ?? "1"
            guard keep == "1" || keep == "0" else { return .error(400, "keep-bindings must be 1 or 0") }
            do {
                try await self.restart(keepBindings: keep == "1")
                return .json(["ok": true, "sip_port": self.sipPort])
            } catch {
                return .error(500, "restart failed: \(error)")
            }
        case ("GET", "/control/bindings"):
            guard let user = request.query["user"], !user.isEmpty else { return .error(400, "missing user parameter: /control/bindings?user=NAME") }
            let now = self.configuration.now()
            let bindings: [[String: any Sendable]] = self.bindings(of: user).map { binding in
                var object: [String: any Sendable] = [
                    "contact": binding.contactURI,
                    "transport": binding.transport,
                    "source": binding.sourceAddress,
                    "expires_in": Int((binding.expiresAt - now).rounded()),
                    "authorization": binding.authorizationScheme,
                ]
                if let instance = binding.instanceID { object["instance"] = instance }
                if let regID = binding.registrationID { object["reg_id"] = Int(regID) }
                return object
            }
            return .json(["user": user, "bindings": bindings])
        case ("GET", "/control/secrets"):
            // Every secret the simulator handed its clients, for a scan of what the daemon writes
            // (Benchmarks/fault_campaign.py): tokens, CXone access and transaction tokens, GMS chat keys, the
            // KARTE app key.
            let cxone = self.cxone.issuedTokens
            let chats = self.gms.chats
            return .json([
                "voice_tokens": self.issuedTokens,
                "cxone_access_tokens": cxone.access,
                "cxone_transaction_tokens": cxone.transaction,
                "gms_secure_keys": chats.map(\.secureKey),
                "karte_app_key": self.configuration.karte.appKey,
            ])
        case ("GET", "/control/status"):
            return .json(["register_count": self.registerCount, "tokens_issued": self.tokensIssued])
        default:
            if let reply = self.cxone.route(request) { return reply }
            if let reply = self.genesys.route(request) { return reply }
            if let reply = self.gms.controlRoute(request) { return reply }
            if let reply = await self.gms.route(request) { return reply }
            if let reply = self.karte.controlRoute(request) { return reply }
            if let reply = await self.karte.trackRoute(request) { return reply }
            return .error(404, "no endpoint \(request.method) \(request.path); see attendant-sim --help")
        }
    }

    private func tokenReply(_ request: HTTPRouteRequest) -> HTTPReply {
        guard let identity = request.query["identity"], !identity.isEmpty else {
            return .error(400, "missing identity parameter: /token?identity=NAME")
        }
        if self.refusesRenewals { return .error(403, "renewals refused by the simulator") }
        let token = self.issueToken(identity: identity)
        return .json(["token": token, "identity": identity, "expires_in": self.configuration.tokenLifetime.wholeSeconds])
    }

    private func faultReply(_ request: HTTPRouteRequest) -> HTTPReply {
        let fault: RegistrarFault
        switch request.query["kind"] ?? "" {
        case "423": fault = .intervalTooBrief(minExpires: request.query["min-expires"].flatMap { UInt32($0) } ?? 900)
        case "401-loop": fault = .challengeLoop
        case "503": fault = .serviceUnavailable(retryAfter: request.query["retry-after"].flatMap { UInt32($0) })
        case "silence": fault = .silence
        case "malformed": fault = .malformed
        case "403": fault = .forbidden
        case let other:
            return .error(400, "unknown fault kind '\(other)': use 423, 401-loop, 503, silence, malformed or 403")
        }
        var times: Int?
        if let text = request.query["times"] {
            guard let count = Int(text), count > 0 else { return .error(400, "times must be a positive whole number") }
            times = count
        }
        self.inject(fault, times: times)
        return .json(["ok": true])
    }

    static func json(_ summary: SimulatedCall.Summary) -> [String: any Sendable] {
        var object: [String: any Sendable] = [
            "number": summary.number,
            "call_id": summary.callID,
            "user": summary.user,
            "status": summary.status,
            "cancelled": summary.cancelled,
        ]
        if let code = summary.finalCode { object["final_code"] = code }
        if let reason = summary.finalReason { object["final_reason"] = reason }
        if let redirect = summary.redirectTo { object["redirect_to"] = redirect }
        if let failure = summary.failure { object["failure"] = failure }
        return object
    }
}
