// The part of CoreLocation that UserNotifications' location trigger needs, for Linux, where Apple's
// CoreLocation does not exist: coordinates, distances, CLRegion (entry/exit flags, identifier) and
// CLCircularRegion (center, radius, contains(_:)). It is its own module, named as Apple's, so code
// written for Apple (`import CoreLocation`, or only `import UserNotifications`, which re-exports it
// as Apple's does) compiles unchanged. There is no location manager: on Linux the device reports
// its location to Herald over the API, and Herald decides entry and exit.
#if os(Linux)
    import Foundation
    import HeraldTriggers

    public typealias CLLocationDegrees = Double
    public typealias CLLocationDistance = Double

    public struct CLLocationCoordinate2D: Sendable, Hashable {
        public var latitude: CLLocationDegrees
        public var longitude: CLLocationDegrees

        public init() {
            latitude = 0
            longitude = 0
        }

        public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Whether a coordinate is valid: latitude in -90…90 and longitude in -180…180.
    public func CLLocationCoordinate2DIsValid(_ coord: CLLocationCoordinate2D) -> Bool {
        (-90...90).contains(coord.latitude) && (-180...180).contains(coord.longitude)
    }

    public func CLLocationCoordinate2DMake(_ latitude: CLLocationDegrees, _ longitude: CLLocationDegrees)
        -> CLLocationCoordinate2D
    {
        CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
    }

    /// The great-circle distance in meters (HeraldTriggers' `Coordinate.distance`: the server decides
    /// entry and exit with the same formula).
    package func greatCircleDistance(_ a: CLLocationCoordinate2D, _ b: CLLocationCoordinate2D) -> CLLocationDistance {
        Coordinate(latitude: a.latitude, longitude: a.longitude)
            .distance(to: Coordinate(latitude: b.latitude, longitude: b.longitude))
    }

    open class CLRegion: NSObject, NSCopying, NSSecureCoding {
        open var identifier: String { storedIdentifier }
        /// Notify on entering the region (default true).
        open var notifyOnEntry: Bool = true
        /// Notify on leaving the region (default true).
        open var notifyOnExit: Bool = true

        private let storedIdentifier: String

        package init(identifier: String) {
            storedIdentifier = identifier
            super.init()
        }

        @available(*, unavailable, message: "Use CLCircularRegion(center:radius:identifier:)")
        public override init() { fatalError("CLRegion() is unavailable") }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? CLRegion, type(of: other) == type(of: self) else { return false }
            return identifier == other.identifier && notifyOnEntry == other.notifyOnEntry
                && notifyOnExit == other.notifyOnExit
        }

        open override var hash: Int { identifier.hashValue }

        open func copy(with zone: NSZone? = nil) -> Any {
            let copy = CLRegion(identifier: identifier)
            copy.notifyOnEntry = notifyOnEntry
            copy.notifyOnExit = notifyOnExit
            return copy
        }

        public class var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encode(NSString(string: identifier), forKey: "identifier")
            coder.encode(notifyOnEntry, forKey: "notifyOnEntry")
            coder.encode(notifyOnExit, forKey: "notifyOnExit")
        }

        public required init?(coder: NSCoder) {
            guard let identifier = coder.decodeObject(of: NSString.self, forKey: "identifier") else { return nil }
            storedIdentifier = String(describing: identifier)
            notifyOnEntry = coder.decodeBool(forKey: "notifyOnEntry")
            notifyOnExit = coder.decodeBool(forKey: "notifyOnExit")
            super.init()
        }
    }

    open class CLCircularRegion: CLRegion {
        open var center: CLLocationCoordinate2D { storedCenter }
        /// In meters.
        open var radius: CLLocationDistance { storedRadius }

        private let storedCenter: CLLocationCoordinate2D
        private let storedRadius: CLLocationDistance

        public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
            storedCenter = center
            storedRadius = radius
            super.init(identifier: identifier)
        }

        /// Whether the coordinate is inside the circle (on its edge counts as inside).
        open func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
            greatCircleDistance(center, coordinate) <= radius
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? CLCircularRegion else { return false }
            return super.isEqual(other) && center == other.center && radius == other.radius
        }

        open override func copy(with zone: NSZone? = nil) -> Any {
            let copy = CLCircularRegion(center: center, radius: radius, identifier: identifier)
            copy.notifyOnEntry = notifyOnEntry
            copy.notifyOnExit = notifyOnExit
            return copy
        }

        open override func encode(with coder: NSCoder) {
            super.encode(with: coder)
            coder.encode(center.latitude, forKey: "latitude")
            coder.encode(center.longitude, forKey: "longitude")
            coder.encode(radius, forKey: "radius")
        }

        public required init?(coder: NSCoder) {
            storedCenter = CLLocationCoordinate2D(
                latitude: coder.decodeDouble(forKey: "latitude"), longitude: coder.decodeDouble(forKey: "longitude"))
            storedRadius = coder.decodeDouble(forKey: "radius")
            super.init(coder: coder)
        }
    }
#endif
