//! World manufacturer identifiers (VIN positions 1-3) of major manufacturers: the brand used when no
//! vehicle pattern matches, the manufacturer of record and the country the WMI is assigned to. A WMI shared
//! by several brands (FCA's `1C4`) names the group; the vehicle pattern then gives the brand.

/// One WMI assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wmi {
    pub code: &'static str,
    pub make: &'static str,
    pub manufacturer: &'static str,
    pub country: &'static str,
}

const fn w(code: &'static str, make: &'static str, manufacturer: &'static str, country: &'static str) -> Wmi {
    Wmi { code, make, manufacturer, country }
}

const US: &str = "United States";

pub const TABLE: &[Wmi] = &[
    w("1FA", "FORD", "Ford Motor Company", US),
    w("1FM", "FORD", "Ford Motor Company", US),
    w("1FT", "FORD", "Ford Motor Company", US),
    w("2FM", "FORD", "Ford Motor Company of Canada", "Canada"),
    w("3FA", "FORD", "Ford Motor Company", "Mexico"),
    w("1G1", "CHEVROLET", "General Motors LLC", US),
    w("1GC", "CHEVROLET", "General Motors LLC", US),
    w("1GN", "CHEVROLET", "General Motors LLC", US),
    w("1GT", "GMC", "General Motors LLC", US),
    w("1G6", "CADILLAC", "General Motors LLC", US),
    w("6G1", "HOLDEN", "General Motors Holden", "Australia"),
    w("1HG", "HONDA", "American Honda Motor Co., Inc.", US),
    w("19X", "HONDA", "American Honda Motor Co., Inc.", US),
    w("5FN", "HONDA", "American Honda Motor Co., Inc.", US),
    w("5J6", "HONDA", "American Honda Motor Co., Inc.", US),
    w("2HG", "HONDA", "Honda of Canada Mfg.", "Canada"),
    w("JHM", "HONDA", "Honda Motor Co., Ltd.", "Japan"),
    w("4T1", "TOYOTA", "Toyota Motor Manufacturing Kentucky, Inc.", US),
    w("5TD", "TOYOTA", "Toyota Motor Manufacturing Indiana, Inc.", US),
    w("5TF", "TOYOTA", "Toyota Motor Manufacturing Texas, Inc.", US),
    w("2T1", "TOYOTA", "Toyota Motor Manufacturing Canada, Inc.", "Canada"),
    w("2T3", "TOYOTA", "Toyota Motor Manufacturing Canada, Inc.", "Canada"),
    w("JTD", "TOYOTA", "Toyota Motor Corporation", "Japan"),
    w("JTM", "TOYOTA", "Toyota Motor Corporation", "Japan"),
    w("1N4", "NISSAN", "Nissan North America, Inc.", US),
    w("5N1", "NISSAN", "Nissan North America, Inc.", US),
    w("JN1", "NISSAN", "Nissan Motor Co., Ltd.", "Japan"),
    w("1C4", "CHRYSLER", "FCA US LLC", US),
    w("1C6", "RAM", "FCA US LLC", US),
    w("2C3", "CHRYSLER", "FCA Canada Inc.", "Canada"),
    w("5YJ", "TESLA", "Tesla, Inc.", US),
    w("7SA", "TESLA", "Tesla, Inc.", US),
    w("LRW", "TESLA", "Tesla (Shanghai) Co., Ltd.", "China"),
    w("1VW", "VOLKSWAGEN", "Volkswagen Group of America Chattanooga Operations, LLC", US),
    w("3VW", "VOLKSWAGEN", "Volkswagen de Mexico", "Mexico"),
    w("WVW", "VOLKSWAGEN", "Volkswagen AG", "Germany"),
    w("9BW", "VOLKSWAGEN", "Volkswagen do Brasil", "Brazil"),
    w("WAU", "AUDI", "Audi AG", "Germany"),
    w("WP0", "PORSCHE", "Dr. Ing. h.c. F. Porsche AG", "Germany"),
    w("WBA", "BMW", "BMW AG", "Germany"),
    w("5UX", "BMW", "BMW Manufacturing Co., LLC", US),
    w("WDD", "MERCEDES-BENZ", "Mercedes-Benz AG", "Germany"),
    w("4JG", "MERCEDES-BENZ", "Mercedes-Benz U.S. International, Inc.", US),
    w("KMH", "HYUNDAI", "Hyundai Motor Company", "South Korea"),
    w("5NP", "HYUNDAI", "Hyundai Motor Manufacturing Alabama, LLC", US),
    w("KNA", "KIA", "Kia Corporation", "South Korea"),
    w("5XY", "KIA", "Kia Georgia, Inc.", US),
    w("JF1", "SUBARU", "Subaru Corporation", "Japan"),
    w("4S4", "SUBARU", "Subaru of Indiana Automotive, Inc.", US),
    w("JM1", "MAZDA", "Mazda Motor Corporation", "Japan"),
    w("JM3", "MAZDA", "Mazda Motor Corporation", "Japan"),
    w("YV1", "VOLVO", "Volvo Car Corporation", "Sweden"),
    w("YV4", "VOLVO", "Volvo Car Corporation", "Sweden"),
    w("SAJ", "JAGUAR", "Jaguar Land Rover Limited", "United Kingdom"),
    w("SAL", "LAND ROVER", "Jaguar Land Rover Limited", "United Kingdom"),
    w("ZFF", "FERRARI", "Ferrari S.p.A.", "Italy"),
    w("MA1", "MAHINDRA", "Mahindra & Mahindra Ltd.", "India"),
    w("1M8", "MCI", "Motor Coach Industries, Inc.", US),
];

/// The assignment of a WMI, if it is one of the covered manufacturers.
pub fn lookup(code: &str) -> Option<&'static Wmi> {
    TABLE.iter().find(|w| w.code == code)
}
