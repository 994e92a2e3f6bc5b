// Apple's UserNotifications module re-exports CoreLocation (its location trigger takes a CLRegion),
// so `import UserNotifications` alone makes CLCircularRegion visible; this module does the same.
#if os(Linux)
    @_exported import CoreLocation
#endif
