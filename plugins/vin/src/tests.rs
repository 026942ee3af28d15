//! Decoder tests with hand-computed check digits and model years, and handler tests on the shipped seed.

use datahost_plugin_api::testing::{get, manifest_problems, plugin_with_own_seeds};
use serde_json::Value;

use crate::decode::{check_digit, model_year, parse, region, transliterate};
use crate::{Vin, ROUTE};

/// Test-side check digit, written independently of `decode.rs`: letters take their place in the
/// three transliteration runs A-H (1-8), J-R (1-9, with P = 7 and R = 9) and S-Z (2-9).
fn with_check_digit(template: &str) -> String {
    const WEIGHTS: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
    let value = |c: char| -> u32 {
        if let Some(d) = c.to_digit(10) {
            return d;
        }
        for (run, start) in [("ABCDEFGH", 1), ("JKLMN", 1), ("P", 7), ("R", 9), ("STUVWXYZ", 2)] {
            if let Some(i) = run.find(c) {
                return start + i as u32;
            }
        }
        0 // the `?` placeholder in position 9 weighs 0 anyway
    };
    let sum: u32 = template.chars().zip(WEIGHTS).map(|(c, w)| value(c) * w).sum();
    let digit = match sum % 11 {
        10 => 'X',
        r => char::from_digit(r, 10).unwrap(),
    };
    template.chars().enumerate().map(|(i, c)| if i == 8 { digit } else { c }).collect()
}

fn vin(p: &Vin, v: &str) -> (u16, Value) {
    get(p, ROUTE, &[("vin", v)])
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Vin>(), Vec::<String>::new());
}

#[test]
fn check_digits_computed_by_hand() {
    // 1M8GDM9AXKP042788: 8+28+48+35+16+12+18+10 + 0 + 18+56+0+24+10+28+24+16 = 351; 351 mod 11 = 10 → X.
    assert_eq!(check_digit("1M8GDM9AXKP042788"), Some('X'));
    // 3VWD07AJ5EM388202: 24+35+36+20+0+21+2+10 + 0 + 45+32+21+48+40+8+0+4 = 346; 346 mod 11 = 5.
    assert_eq!(check_digit("3VWD07AJ5EM388202"), Some('5'));
    // 11111111?11111111: every value 1, weights without position 9 sum to 89; 89 mod 11 = 1.
    assert_eq!(check_digit("11111111111111111"), Some('1'));
    assert_eq!(check_digit("1M8GDM9AXKP04278"), None, "16 characters");
    assert_eq!(with_check_digit("1M8GDM9A?KP042788"), "1M8GDM9AXKP042788");
    assert_eq!(with_check_digit("3VWD07AJ?EM388202"), "3VWD07AJ5EM388202");
}

#[test]
fn transliteration_table() {
    for (c, v) in [('A', 1), ('H', 8), ('J', 1), ('N', 5), ('P', 7), ('R', 9), ('S', 2), ('Z', 9), ('7', 7)] {
        assert_eq!(transliterate(c), Some(v), "{c}");
    }
    for c in ['I', 'O', 'Q', 'a', '-', ' '] {
        assert_eq!(transliterate(c), None, "{c}");
    }
}

#[test]
fn model_year_cycle_follows_position_7() {
    assert_eq!(model_year('9', 'K'), Some(1989));
    assert_eq!(model_year('A', 'E'), Some(2014));
    assert_eq!(model_year('0', 'A'), Some(1980));
    assert_eq!(model_year('C', 'A'), Some(2010));
    assert_eq!(model_year('1', 'Y'), Some(2000));
    assert_eq!(model_year('Z', 'Y'), Some(2030));
    assert_eq!(model_year('5', '1'), Some(2001));
    assert_eq!(model_year('5', '9'), Some(2009));
    assert_eq!(model_year('B', '9'), Some(2039));
    assert_eq!(model_year('X', 'R'), Some(2024));
    for bad in ['0', 'U', 'Z', 'I', 'O', 'Q'] {
        assert_eq!(model_year('A', bad), None, "{bad}");
    }
}

#[test]
fn regions_from_first_character() {
    assert_eq!(region('1'), "North America");
    assert_eq!(region('5'), "North America");
    assert_eq!(region('6'), "Oceania");
    assert_eq!(region('9'), "South America");
    assert_eq!(region('C'), "Africa");
    assert_eq!(region('J'), "Asia");
    assert_eq!(region('W'), "Europe");
}

#[test]
fn parse_normalises_case_and_flags_foreign_check_digits() {
    let p = parse(" 1m8gdm9axkp042788 ").unwrap();
    assert_eq!(p.vin, "1M8GDM9AXKP042788");
    assert_eq!((p.wmi(), p.vds(), p.plant_code(), p.year), ("1M8", "GDM9A", 'P', 1989));
    assert!(p.check_digit_valid);
    let eu = parse("WVWZZZAUZFW123456").unwrap();
    assert!(!eu.check_digit_valid);
    assert_eq!(eu.year, 2015);
}

#[test]
fn missing_and_malformed_vins_are_400_naming_the_rule() {
    let p = plugin_with_own_seeds::<Vin>();
    let (status, body) = get(&p, ROUTE, &[]);
    assert_eq!((status, body["error"].as_str()), (400, Some("the vin query parameter is required")));
    for (input, message) in [
        ("1M8GDM9AXKP04278", "vin must be exactly 17 characters, got 16"),
        ("1M8GDM9AXKP0427880", "vin must be exactly 17 characters, got 18"),
        (
            "1M8GDM9AXKP04278I",
            "vin must contain only digits and the letters A-Z except I, O and Q; position 17 is `I` (I, O and Q \
             are never used in a VIN)",
        ),
        ("1M8GDM9AXKP0427-8", "vin must contain only digits and the letters A-Z except I, O and Q; position 16 is `-`"),
        (
            "1M8GDM9A1KP042788",
            "vin check digit (position 9) is `1` but the VIN calculates to `X`: a North American VIN (first \
             character 1-5) must carry a valid ISO 3779 / 49 CFR 565 check digit",
        ),
    ] {
        let (status, body) = vin(&p, input);
        assert_eq!(status, 400, "{input}");
        assert_eq!(body["error"], message, "{input}");
    }
    let bad_year = with_check_digit("1HGCV1F1?UA014233");
    let (status, body) = vin(&p, &bad_year);
    assert_eq!(status, 400);
    assert_eq!(body["error"], "vin position 10 must be a model-year code (A-H, J-N, P, R-T, V-Y or 1-9), got `U`");
    // NHTSA's own example of a bad VIN: wrong check digit on a Mexican-built (North American) VIN.
    assert_eq!(vin(&p, "3VW3564650M388202").0, 400);
}

#[test]
fn unknown_manufacturer_is_404() {
    let p = plugin_with_own_seeds::<Vin>();
    let (status, body) = vin(&p, &with_check_digit("1ZZCV1F1?KA014233"));
    assert_eq!(status, 404);
    assert!(body["error"].as_str().unwrap().starts_with("no manufacturer is known for WMI `1ZZ`"), "{body}");
}

#[test]
fn full_decode_with_recalls_complaints_and_theft() {
    let p = plugin_with_own_seeds::<Vin>();
    let stolen = with_check_digit("1HGCV1F1?KADEM006");
    assert_eq!(stolen, "1HGCV1F17KADEM006");
    let (status, body) = vin(&p, &stolen.to_lowercase());
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["vin"], stolen);
    assert_eq!(
        body["decode"],
        serde_json::json!({
            "make": "HONDA", "model": "Accord", "trim": "LX", "bodyClass": "Sedan/Saloon",
            "engine": "1.5L I4 turbo, gasoline, 192 hp", "plant": "Marysville, Ohio, United States",
            "year": 2019, "gvwr": "Class 1C: 4,001 - 5,000 lb (1,814 - 2,268 kg)"
        })
    );
    let campaigns: Vec<&str> =
        body["openRecalls"].as_array().unwrap().iter().map(|r| r["campaignNumber"].as_str().unwrap()).collect();
    // DEMO-20V870 covers 2017-2019 and DEMO-19V502 covers 2018-2020; DEMO-12V437 (2009-2011) does not match.
    assert_eq!(campaigns, ["DEMO-20V870", "DEMO-19V502"]);
    assert_eq!(body["complaintsCount"], 3);
    assert_eq!(body["theftFlag"], true);
    assert_eq!(body["titleBrand"], Value::Null);
    assert_eq!(body["wmi"], "1HG");
    assert_eq!(body["country"], "United States");
    assert_eq!(body["region"], "North America");
    assert_eq!(body["checkDigitValid"], true);
    assert_eq!(body["decodeLevel"], "vehicle");

    let (_, other) = vin(&p, &with_check_digit("1HGCV1F1?KA014234"));
    assert_eq!(other["theftFlag"], false, "the theft flag is per VIN");
    assert_eq!(other["complaintsCount"], 3);
}

#[test]
fn schema_example_matches_a_real_response() {
    let p = plugin_with_own_seeds::<Vin>();
    let (_, body) = vin(&p, "1HGCV1F17KADEM006");
    let fragment = crate::schema::fragment();
    let example = &fragment["paths"][ROUTE]["get"]["responses"]["200"]["content"]["application/json"]["example"];
    assert_eq!(example["decode"], body["decode"]);
    assert_eq!(example["openRecalls"][0], body["openRecalls"][0]);
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(example), keys(&body));
}

#[test]
fn classic_and_pre_2010_vins_use_the_1980_cycle() {
    let p = plugin_with_own_seeds::<Vin>();
    let (status, body) = vin(&p, "1M8GDM9AXKP042788");
    assert_eq!(status, 200);
    assert_eq!(body["decode"]["year"], 1989);
    assert_eq!(body["decode"]["make"], "MCI");
    assert_eq!(body["decode"]["bodyClass"], "Bus");
    assert_eq!(body["decode"]["plant"], "Pembina, North Dakota, United States");
    let (_, accord) = vin(&p, &with_check_digit("1HGCM564?6A000123"));
    assert_eq!(accord["decode"]["year"], 2006);
    assert_eq!(accord["decode"]["trim"], "EX");
    // 2004-2006 ABS campaign applies to 2006; the 2017-2019 and 2018-2020 ones do not.
    let campaigns: Vec<&str> =
        accord["openRecalls"].as_array().unwrap().iter().map(|r| r["campaignNumber"].as_str().unwrap()).collect();
    assert_eq!(campaigns, ["DEMO-07V212"]);
}

#[test]
fn decodes_the_nhtsa_sample_vin() {
    // vPIC decodes 3VWD07AJ5EM388202 as a 2014 Volkswagen Jetta SE built in Puebla, Mexico.
    let p = plugin_with_own_seeds::<Vin>();
    let (status, body) = vin(&p, "3VWD07AJ5EM388202");
    assert_eq!(status, 200);
    assert_eq!(body["decode"]["make"], "VOLKSWAGEN");
    assert_eq!(body["decode"]["model"], "Jetta");
    assert_eq!(body["decode"]["trim"], "SE");
    assert_eq!(body["decode"]["year"], 2014);
    assert_eq!(body["decode"]["plant"], "Puebla, Mexico");
    assert_eq!(body["country"], "Mexico");
}

#[test]
fn foreign_vin_with_wrong_check_digit_is_accepted_and_flagged() {
    let p = plugin_with_own_seeds::<Vin>();
    let (status, body) = vin(&p, "WVWZZZAUZFW123456");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["checkDigitValid"], false);
    assert_eq!(body["region"], "Europe");
    assert_eq!(body["country"], "Germany");
    assert_eq!(body["decode"]["model"], "Golf");
    assert_eq!(body["decode"]["year"], 2015);
    assert_eq!(body["decode"]["plant"], "Wolfsburg, Germany");
}

#[test]
fn known_manufacturer_without_pattern_decodes_the_make_only() {
    let p = plugin_with_own_seeds::<Vin>();
    let (status, body) = vin(&p, &with_check_digit("1HGXX1X1?RA000001"));
    assert_eq!(status, 200);
    assert_eq!(body["decodeLevel"], "manufacturer");
    assert_eq!(
        body["decode"],
        serde_json::json!({
            "make": "HONDA", "model": "", "trim": "", "bodyClass": "", "engine": "",
            "plant": "Marysville, Ohio, United States", "year": 2024, "gvwr": null
        })
    );
    assert_eq!(body["openRecalls"], serde_json::json!([]));
    assert_eq!(body["complaintsCount"], 0);
    assert_eq!(body["theftFlag"], false);
    // A pattern covers only its model years: a 2026 Accord VDS falls back to the manufacturer.
    let (_, out_of_range) = vin(&p, &with_check_digit("1HGCV1F1?TA000001"));
    assert_eq!(out_of_range["decodeLevel"], "manufacturer");
    assert_eq!(out_of_range["decode"]["year"], 2026);
}

#[test]
fn most_specific_pattern_wins_and_shared_campaigns_count_once() {
    let p = plugin_with_own_seeds::<Vin>();
    let (_, xlt) = vin(&p, &with_check_digit("1FTEW1EP?HF000001"));
    assert_eq!(xlt["decode"]["trim"], "XLT SuperCrew 4x4");
    assert_eq!(xlt["decode"]["year"], 2017);
    let (_, generic) = vin(&p, &with_check_digit("1FTXW1EZ?HF000001"));
    assert_eq!(generic["decode"]["model"], "F-150");
    assert_eq!(generic["decode"]["trim"], "", "only the wildcard pattern `*W1E*` matches");
    let (_, sierra) = vin(&p, &with_check_digit("1GTU9DED?LZ000001"));
    assert_eq!(sierra["decode"]["make"], "GMC");
    let campaigns: Vec<&str> =
        sierra["openRecalls"].as_array().unwrap().iter().map(|r| r["campaignNumber"].as_str().unwrap()).collect();
    assert_eq!(campaigns.iter().filter(|c| **c == "DEMO-20V680").count(), 1);
}

#[test]
fn seed_is_consistent_with_the_vin_rules() {
    let seed: Value = serde_json::from_str(include_str!("../seed/vin.json")).unwrap();
    assert!(seed["meta"]["caveat"].as_str().unwrap().contains("DEMO DATA"));
    for t in seed["thefts"].as_array().unwrap() {
        let v = t["vin"].as_str().unwrap();
        assert_eq!(with_check_digit(v), v, "theft VIN {v} must carry its check digit");
        assert!(parse(v).is_ok(), "{v}");
        // The invented theft facts attach only to demo VINs: serial (positions 12-17) `DEM` + 3 digits. 49 CFR
        // 565.15 makes the last five characters of a car's or light truck's VIN numeric, so no real vehicle of
        // these high-volume manufacturers carries letters in positions 13-14.
        let serial = &v[11..];
        assert!(serial.starts_with("DEM") && serial[3..].bytes().all(|b| b.is_ascii_digit()), "{v}");
    }
    assert_eq!(seed["thefts"].as_array().unwrap().len(), 23);
    let text = include_str!("../seed/vin.json").to_lowercase();
    for host in ["nhtsa.gov", "nhtsa.dot.gov", "sec.gov", "house.gov", "senate.gov", "fec.gov", "usaspending.gov"] {
        assert!(!text.contains(host), "the demo seed cites {host}");
    }
    for v in seed["vehicles"].as_array().unwrap() {
        let vds = v["vds"].as_str().unwrap();
        assert_eq!(vds.len(), 5, "{v}");
        let pos7 = vds.as_bytes()[3];
        let (from, to) = (v["yearFrom"].as_i64().unwrap(), v["yearTo"].as_i64().unwrap());
        if pos7.is_ascii_alphabetic() {
            assert!(from >= 2010 && to <= 2039, "{v}: a letter in position 7 means 2010-2039");
        } else if pos7.is_ascii_digit() {
            assert!(from >= 1980 && to <= 2009, "{v}: a digit in position 7 means 1980-2009");
        }
        assert!(crate::wmi::lookup(v["wmi"].as_str().unwrap()).is_some(), "{v}");
    }
    // Nothing in a demo row can pass for an NHTSA record: campaign numbers are `DEMO-` + 6 characters (NHTSA's
    // are 9, such as 02V288000), texts say DEMO, complaint numbers are not ODI numbers, no real address.
    assert_eq!(seed["meta"]["sourceUrl"], "https://demo.invalid/vin/");
    let campaigns = seed["recalls"].as_array().unwrap();
    assert!(campaigns.iter().all(|r| {
        let c = r["campaignNumber"].as_str().unwrap();
        c.len() == 11 && c.starts_with("DEMO-") && &c[7..8] == "V" && c[5..7].bytes().all(|b| b.is_ascii_digit())
    }));
    assert!(campaigns.iter().all(|r| r["summary"].as_str().unwrap().starts_with("DEMO DATA")
        && r["remedy"].as_str().unwrap().starts_with("DEMO DATA")
        && r["manufacturer"].as_str().unwrap().ends_with("(demo manufacturer)")));
    assert!(seed["complaints"].as_array().unwrap().iter().all(|c| c["odiNumber"]
        .as_str()
        .unwrap()
        .starts_with("DEMO-")
        && c["summary"].as_str().unwrap().starts_with("DEMO DATA")));
}
