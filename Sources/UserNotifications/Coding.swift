// Small helpers for the NSSecureCoding conformances: property-list values (strings, numbers,
// dictionaries, arrays) go through Foundation's classes, which is what a keyed archive holds.
//
// swift-corelibs-foundation's unarchiver fails the whole archive when a missing key is decoded as an
// object, so every optional value is looked up first (`containsValue(forKey:)`).
#if os(Linux)
    import Foundation

    extension NSCoder {
        /// The object under the key, nil when the key is absent.
        package func decodeOptional<T: NSObject & NSSecureCoding>(of type: T.Type, forKey key: String) -> T? {
            containsValue(forKey: key) ? decodeObject(of: type, forKey: key) : nil
        }

        /// An object of one of the classes under the key, nil when the key is absent.
        package func decodeOptional(of classes: [AnyClass], forKey key: String) -> Any? {
            containsValue(forKey: key) ? decodeObject(of: classes, forKey: key) : nil
        }

        package func decodeString(forKey key: String) -> String? {
            decodeOptional(of: NSString.self, forKey: key).map { String(describing: $0) }
        }

        package func encodeString(_ string: String?, forKey key: String) {
            guard let string else { return }
            encode(NSString(string: string), forKey: key)
        }

        package func encodePropertyList(_ dictionary: [AnyHashable: Any], forKey key: String) {
            encode(NSDictionary(dictionary: dictionary), forKey: key)
        }

        /// The classes a property-list dictionary may hold.
        package static var propertyListClasses: [AnyClass] {
            [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSNull.self]
        }

        package func decodePlist(forKey key: String) -> [AnyHashable: Any]? {
            decodeOptional(of: NSCoder.propertyListClasses, forKey: key) as? [AnyHashable: Any]
        }

        /// An array of `Element`s; `subclasses` names the element subclasses the archive may hold.
        package func decodeArray<Element: NSObject & NSSecureCoding>(
            of type: Element.Type, subclasses: [AnyClass] = [], forKey key: String
        ) -> [Element]? {
            guard let array = decodeOptional(of: [NSArray.self, type] + subclasses, forKey: key) as? NSArray else {
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
    /// (`NSDictionary.isEqual(to:)` answers false for equal dictionaries in swift-corelibs-foundation;
    /// comparing two NSDictionary objects compares their contents, nested values included.)
    package func propertyListsEqual(_ lhs: [AnyHashable: Any], _ rhs: [AnyHashable: Any]) -> Bool {
        NSDictionary(dictionary: lhs).isEqual(NSDictionary(dictionary: rhs))
    }
#endif
