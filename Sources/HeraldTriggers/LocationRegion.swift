import Foundation

/// A place on Earth in degrees (WGS 84, as a device reports it).
public struct Coordinate: Hashable, Sendable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Latitude in -90…90 and longitude in -180…180 (CoreLocation's `CLLocationCoordinate2DIsValid`).
    public var isValid: Bool { (-90...90).contains(latitude) && (-180...180).contains(longitude) }

    /// The great-circle distance in meters: haversine on a sphere of the mean Earth radius
    /// (6,371,008.8 m), within 0.5% of the ellipsoid — what deciding region entry needs.
    public func distance(to other: Coordinate) -> Double {
        let radius = 6_371_008.8
        let lat1 = latitude * .pi / 180
        let lat2 = other.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (other.longitude - longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * asin(min(1, sqrt(h)))
    }
}

/// The region of a location trigger (Apple's `CLCircularRegion` in a `UNLocationNotificationTrigger`):
/// a circle, and whether entering and/or leaving it fires.
public struct LocationRegion: Hashable, Sendable {
    public var identifier: String
    public var center: Coordinate
    /// In meters.
    public var radius: Double
    public var notifiesOnEntry: Bool
    public var notifiesOnExit: Bool

    public init(identifier: String, center: Coordinate, radius: Double, notifiesOnEntry: Bool, notifiesOnExit: Bool) {
        self.identifier = identifier
        self.center = center
        self.radius = radius
        self.notifiesOnEntry = notifiesOnEntry
        self.notifiesOnExit = notifiesOnExit
    }

    /// Whether the coordinate is in the circle (its edge included).
    public func contains(_ coordinate: Coordinate) -> Bool {
        center.distance(to: coordinate) <= radius
    }

    /// What crossing the circle's edge is.
    public enum Crossing: String, Hashable, Sendable {
        case entry, exit
    }

    /// The crossing a device makes moving from `old` (nil: its location was not known, taken as
    /// outside) to `new`, when the region fires on it; nil when it does not cross, or the region
    /// does not fire on that crossing. A device already inside when the trigger was added fires
    /// nothing until it leaves (exit) or leaves and comes back (entry), as region monitoring does.
    public func crossing(from old: Coordinate?, to new: Coordinate) -> Crossing? {
        let wasInside = old.map(contains) ?? false
        let isInside = contains(new)
        switch (wasInside, isInside) {
        case (false, true): return notifiesOnEntry ? .entry : nil
        case (true, false): return notifiesOnExit ? .exit : nil
        default: return nil
        }
    }
}
