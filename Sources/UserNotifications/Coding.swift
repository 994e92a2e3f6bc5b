// Small helpers for the NSSecureCoding conformances: property-list values (strings, numbers,
// dictionaries, arrays) go through Foundation's classes, which is what a keyed archive holds.
#if os(Linux)
    import Foundation

    extension NSCoder {
        package func decodeString(forKey key: String) -> String? {
            (decodeObject(of: NSString.self, forKey: key)).map { String(describing: $0) }
        }

        package func encodeString(_ string: String?, forKey key: String) {
            encode(string.map { NSString(string: $0) }, forKey: key)
        }

        package func encodePropertyList(_ dictionary: [AnyHashable: Any], forKey key: String) {
            encode(NSDictionary(dictionary: dictionary), forKey: key)
        }

        /// The classes a property-list dictionary may hold.
        package static var propertyListClasses: [AnyClass] {
            [
                NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
                NSNull.self,
            ]
        }

        package func decodePlist(forKey key: String) -> [AnyHashable: Any]? {
            decodeObject(of: NSCoder.propertyListClasses, forKey: key) as? [AnyHashable: Any]
        }

        /// An array of `Element`s; `subclasses` names the element subclasses the archive may hold.
        package func decodeArray<Element: NSObject & NSSecureCoding>(
            of type: Element.Type, subclasses: [AnyClass] = [], forKey key: String
        ) -> [Element]? {
            guard let array = decodeObject(of: [NSArray.self, type] + subclasses, forKey: key) as? NSArray else {
                return nil
            }
            var elements: [Element] = []
            for item in array {
                guard let element = item as? Element else { return nil }
                elements.append(element)
            }
            return elements
        }
    }

    /// Property-list dictionaries compared as Foundation compares them (`-[NSDictionary isEqual:]`).
    package func propertyListsEqual(_ lhs: [AnyHashable: Any], _ rhs: [AnyHashable: Any]) -> Bool {
        NSDictionary(dictionary: lhs).isEqual(to: rhs)
    }
#endif
