import HeraldDelivery

/// The hub is where the delivery policy finds a device's sessions and sends what it changes.
extension LiveHub: LiveSessions {}
