// The inputs the driver's REST calls make, success or failure.
extension ChatStateMachine.Input {
    package static func channelConfiguration(_ result: Result<ChatStateMachine.ChannelConfiguration, ChatError>) -> Self {
        switch result {
        case .success(let configuration): .channelConfigurationFetched(configuration)
        case .failure(let error): .channelConfigurationFailed(error)
        }
    }

    package static func availability(_ result: Result<Bool, ChatError>) -> Self {
        switch result {
        case .success(let online): .availabilityFetched(online: online)
        case .failure(let error): .availabilityFailed(error)
        }
    }

    package static func transactionToken(_ result: Result<ChatStateMachine.TransactionToken, ChatError>) -> Self {
        switch result {
        case .success(let token): .transactionTokenFetched(token)
        case .failure(let error): .transactionTokenFailed(error)
        }
    }

    package static func visitor(_ result: Result<Void, ChatError>) -> Self {
        switch result {
        case .success: .visitorStored
        case .failure(let error): .visitorFailed(error)
        }
    }
}
