# Faye 1.4 (Debian ruby-faye) under thin: a real Bayeux server for the GMSChat plugin's client tests
# (Tests/DaemonTestSupport/Faye.swift). FAYE_TIMEOUT is how long it holds a /meta/connect, in seconds.
require 'faye'
Faye::WebSocket.load_adapter('thin')
run Faye::RackAdapter.new(:mount => '/genesys/cometd', :timeout => Integer(ENV.fetch('FAYE_TIMEOUT', '25')))
