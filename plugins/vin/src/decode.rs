//! The VIN engine, independent of any data: structure and character rules, the check digit of
//! ISO 3779 / 49 CFR 565.15, the model year with the 30-year-cycle rule, and the region from the first
//! character. Every rule failure is a 400 naming the `vin` parameter and the rule.

use datahost_plugin_api::ApiError;

/// Position weights for the check digit (49 CFR 565.15(c)); position 9 itself weighs 0.
pub const WEIGHTS: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

/// Model-year codes of position 10, in cycle order: index 0 is 1980 (and 2010), index 29 is 2009 (and 2039).
/// I, O, Q, U, Z and 0 are never used.
pub const YEAR_CODES: &str = "ABCDEFGHJKLMNPRSTVWXY123456789";

/// Transliteration of a VIN character to its value (49 CFR 565.15(a)); `None` for characters a VIN may not
/// hold (I, O, Q, anything outside A-Z and 0-9).
pub fn transliterate(c: char) -> Option<u32> {
    match c {
        '0'..='9' => c.to_digit(10),
        'A' | 'J' => Some(1),
        'B' | 'K' | 'S' => Some(2),
        'C' | 'L' | 'T' => Some(3),
        'D' | 'M' | 'U' => Some(4),
        'E' | 'N' | 'V' => Some(5),
        'F' | 'W' => Some(6),
        'G' | 'P' | 'X' => Some(7),
        'H' | 'Y' => Some(8),
        'R' | 'Z' => Some(9),
        _ => None,
    }
}

/// The check digit a VIN should carry in position 9: the weighted sum modulo 11, with 10 written `X`.
/// `None` when some character has no transliteration. Position 9 does not count (its weight is 0).
pub fn check_digit(vin: &str) -> Option<char> {
    let chars: Vec<char> = vin.chars().collect();
    if chars.len() != 17 {
        return None;
    }
    let mut sum = 0;
    for (i, c) in chars.iter().enumerate() {
        if i == 8 {
            continue;
        }
        sum += transliterate(*c)? * WEIGHTS[i];
    }
    Some(match sum % 11 {
        10 => 'X',
        r => char::from_digit(r, 10).expect("remainder below 10"),
    })
}

/// The model year from position 10, choosing the 30-year cycle by position 7 (49 CFR 565.15(c)(2) for
/// light vehicles): a letter in position 7 means 2010-2039, a digit means 1980-2009.
pub fn model_year(position7: char, position10: char) -> Option<i32> {
    let index = YEAR_CODES.find(position10)? as i32;
    let base = if position7.is_ascii_alphabetic() { 2010 } else { 1980 };
    Some(base + index)
}

/// ISO 3780 region of the first character.
pub fn region(first: char) -> &'static str {
    match first {
        '1'..='5' => "North America",
        '6' | '7' => "Oceania",
        '8' | '9' => "South America",
        'A'..='H' => "Africa",
        'J'..='R' => "Asia",
        'S'..='Z' => "Europe",
        _ => "Unassigned",
    }
}

/// Whether a wrong check digit is an error: 49 CFR 565 binds vehicles built for North America (WMIs
/// starting 1-5); elsewhere position 9 may hold anything (European VINs often carry `Z`).
pub fn check_digit_required(first: char) -> bool {
    matches!(first, '1'..='5')
}

/// A VIN that passed every structural rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedVin {
    /// Upper-case, 17 characters.
    pub vin: String,
    pub year: i32,
    pub check_digit_valid: bool,
    pub expected_check_digit: char,
}

impl ParsedVin {
    /// World manufacturer identifier, positions 1-3.
    pub fn wmi(&self) -> &str {
        &self.vin[..3]
    }
    /// Vehicle descriptor section, positions 4-8.
    pub fn vds(&self) -> &str {
        &self.vin[3..8]
    }
    /// Plant code, position 11.
    pub fn plant_code(&self) -> char {
        self.vin.as_bytes()[10] as char
    }
    pub fn first(&self) -> char {
        self.vin.as_bytes()[0] as char
    }
}

/// Checks a VIN as given by the client: 17 characters, digits and A-Z without I, O and Q (case-insensitive),
/// a model-year code in position 10, and the check digit where it is mandatory.
pub fn parse(input: &str) -> Result<ParsedVin, ApiError> {
    let vin = input.trim().to_ascii_uppercase();
    let n = vin.chars().count();
    if n != 17 {
        return Err(ApiError::bad_request(format!("vin must be exactly 17 characters, got {n}")));
    }
    if let Some((i, c)) = vin.chars().enumerate().find(|(_, c)| transliterate(*c).is_none()) {
        let why = if matches!(c, 'I' | 'O' | 'Q') { " (I, O and Q are never used in a VIN)" } else { "" };
        return Err(ApiError::bad_request(format!(
            "vin must contain only digits and the letters A-Z except I, O and Q; position {} is `{c}`{why}",
            i + 1
        )));
    }
    let chars: Vec<char> = vin.chars().collect();
    let expected = check_digit(&vin).expect("all characters transliterate");
    let check_digit_valid = chars[8] == expected;
    if !check_digit_valid && check_digit_required(chars[0]) {
        return Err(ApiError::bad_request(format!(
            "vin check digit (position 9) is `{}` but the VIN calculates to `{expected}`: a North American VIN \
             (first character 1-5) must carry a valid ISO 3779 / 49 CFR 565 check digit",
            chars[8]
        )));
    }
    let year = model_year(chars[6], chars[9]).ok_or_else(|| {
        ApiError::bad_request(format!(
            "vin position 10 must be a model-year code (A-H, J-N, P, R-T, V-Y or 1-9), got `{}`",
            chars[9]
        ))
    })?;
    Ok(ParsedVin { vin, year, check_digit_valid, expected_check_digit: expected })
}
