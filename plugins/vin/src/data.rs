//! The vehicle dataset as stored in the records engine (patterns, plants, recalls, complaints, theft
//! reports) and the lookups built from it once at `init`.

use std::collections::{HashMap, HashSet};

use datahost_plugin_api::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

/// A vPIC-style decode pattern: a WMI, five VDS characters (positions 4-8, `*` matches any character) and
/// the model years it covers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VehiclePattern {
    pub wmi: String,
    pub vds: String,
    pub year_from: i32,
    pub year_to: i32,
    pub make: String,
    pub model: String,
    pub trim: String,
    pub body_class: String,
    pub engine: String,
    pub gvwr: Option<String>,
}

impl VehiclePattern {
    pub fn matches(&self, vds: &str, year: i32) -> bool {
        self.vds.len() == vds.len()
            && self.vds.bytes().zip(vds.bytes()).all(|(p, c)| p == b'*' || p == c)
            && (self.year_from..=self.year_to).contains(&year)
    }
    /// How many VDS positions the pattern pins down; the most specific matching pattern wins.
    fn specificity(&self) -> usize {
        self.vds.bytes().filter(|b| *b != b'*').count()
    }
}

/// An assembly plant, keyed by WMI and the plant code in VIN position 11.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plant {
    pub wmi: String,
    pub code: String,
    pub plant: String,
}

/// One row of a recall campaign, for one make and model over a model-year range (NHTSA publishes one row
/// per make, model and year; a campaign spanning several models has several rows).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recall {
    pub campaign_number: String,
    pub make: String,
    pub model: String,
    pub year_from: i32,
    pub year_to: i32,
    pub manufacturer: String,
    pub component: String,
    pub summary: String,
    pub consequence: String,
    pub remedy: String,
    pub report_date: String,
    pub potential_units_affected: u64,
}

/// One consumer complaint (only make, model and year are needed to count them).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Complaint {
    pub odi_number: String,
    pub make: String,
    pub model: String,
    pub year: i32,
    pub component: String,
    pub date_received: String,
    pub crash: bool,
    pub fire: bool,
    pub injured: u32,
    pub state: String,
    pub summary: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Theft {
    pub vin: String,
    pub reported_date: String,
    pub state: String,
}

/// The snapshot document: `{meta, vehicles, plants, recalls, complaints, thefts}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    /// Required so that a snapshot without its source and demo caveat fails to load; not served.
    #[allow(dead_code)]
    pub meta: SnapshotMeta,
    pub vehicles: Vec<VehiclePattern>,
    pub plants: Vec<Plant>,
    pub recalls: Vec<Recall>,
    pub complaints: Vec<Complaint>,
    pub thefts: Vec<Theft>,
}

/// Make and model as NHTSA matches them: case-insensitive, surrounding space ignored.
pub fn model_key(make: &str, model: &str) -> (String, String) {
    (make.trim().to_uppercase(), model.trim().to_uppercase())
}

pub struct Index {
    patterns: HashMap<String, Vec<VehiclePattern>>,
    plants: HashMap<(String, String), String>,
    recalls: HashMap<(String, String), Vec<Recall>>,
    complaints: HashMap<(String, String, i32), u64>,
    thefts: HashSet<String>,
}

impl Index {
    pub fn new(snapshot: Snapshot) -> Self {
        let mut patterns: HashMap<String, Vec<VehiclePattern>> = HashMap::new();
        for p in snapshot.vehicles {
            patterns.entry(p.wmi.to_uppercase()).or_default().push(p);
        }
        let plants =
            snapshot.plants.into_iter().map(|p| ((p.wmi.to_uppercase(), p.code.to_uppercase()), p.plant)).collect();
        let mut recalls: HashMap<(String, String), Vec<Recall>> = HashMap::new();
        for r in snapshot.recalls {
            recalls.entry(model_key(&r.make, &r.model)).or_default().push(r);
        }
        let mut complaints = HashMap::new();
        for c in &snapshot.complaints {
            let (make, model) = model_key(&c.make, &c.model);
            *complaints.entry((make, model, c.year)).or_insert(0) += 1;
        }
        let thefts = snapshot.thefts.into_iter().map(|t| t.vin.trim().to_uppercase()).collect();
        Self { patterns, plants, recalls, complaints, thefts }
    }

    /// The most specific pattern of `wmi` matching the VDS and model year (ties: the narrower year range,
    /// then the first listed).
    pub fn vehicle(&self, wmi: &str, vds: &str, year: i32) -> Option<&VehiclePattern> {
        self.patterns.get(wmi)?.iter().filter(|p| p.matches(vds, year)).fold(None, |best, p| match best {
            Some(b)
                if (b.specificity(), -(b.year_to - b.year_from)) >= (p.specificity(), -(p.year_to - p.year_from)) =>
            {
                Some(b)
            }
            _ => Some(p),
        })
    }

    pub fn plant(&self, wmi: &str, code: char) -> Option<&str> {
        self.plants.get(&(wmi.to_string(), code.to_string())).map(String::as_str)
    }

    /// Recall campaigns covering this make, model and model year, one row per campaign, newest report first.
    pub fn recalls(&self, make: &str, model: &str, year: i32) -> Vec<&Recall> {
        let mut out: Vec<&Recall> = self
            .recalls
            .get(&model_key(make, model))
            .map(|rows| rows.iter().filter(|r| (r.year_from..=r.year_to).contains(&year)).collect())
            .unwrap_or_default();
        out.sort_by(|a, b| (&b.report_date, &b.campaign_number).cmp(&(&a.report_date, &a.campaign_number)));
        let mut seen = HashSet::new();
        out.retain(|r| seen.insert(r.campaign_number.as_str()));
        out
    }

    pub fn complaints(&self, make: &str, model: &str, year: i32) -> u64 {
        let (make, model) = model_key(make, model);
        self.complaints.get(&(make, model, year)).copied().unwrap_or(0)
    }

    pub fn stolen(&self, vin: &str) -> bool {
        self.thefts.contains(vin)
    }
}
