//! The vehicle dataset as the host serves it, and the lookups built from it once at `init`. Two documents
//! reach `init`, never mixed: the demo seed (`{meta, vehicles, plants, recalls, complaints, thefts}`) and,
//! once NHTSA files are ingested, `{"ingested": {...}, "recalls", "complaints", "decodes"}` (the records of
//! `ingest.rs`). Both become the same [`Index`]: vPIC decodes by VIN, seed patterns by WMI/VDS, recalls by
//! make and model, complaints by VIN prefix or make/model/year, theft reports by VIN.

use std::collections::{HashMap, HashSet};

use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ingest::{ComplaintRow, DecodeRow, RecallRow, COMPLAINTS_FILE_URL, RECALLS_FILE_URL};

/// NHTSA publishes the first 11 characters of a complaint's VIN; a shorter prefix is too vague to tie a
/// complaint to one vehicle, so such complaints count by make, model and model year instead.
pub const MIN_VIN_PREFIX: usize = 11;

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
    pub potential_units_affected: Option<u64>,
    /// NHTSA's page of the campaign (ingested rows; demo rows have none).
    #[serde(default)]
    pub source_url: Option<String>,
}

impl Recall {
    /// A FLAT_RCL row as a one-year campaign row; `None` for rows that cannot match a vehicle (equipment,
    /// tire and child-seat recalls, or model year 9999).
    fn from_row(r: RecallRow) -> Option<Self> {
        let year = r.year.filter(|_| r.recall_type == "V")?;
        Some(Self {
            campaign_number: r.campaign_number,
            make: r.make,
            model: r.model,
            year_from: year,
            year_to: year,
            manufacturer: r.manufacturer,
            component: r.component,
            summary: r.summary,
            consequence: r.consequence,
            remedy: r.remedy,
            report_date: r.report_date.to_string(),
            potential_units_affected: r.potential_units_affected,
            source_url: Some(r.source_url),
        })
    }
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

/// The demo seed document: `{meta, vehicles, plants, recalls, complaints, thefts}`.
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

/// The ingested document (collections without records are absent).
#[derive(Deserialize)]
struct IngestedDoc {
    #[serde(rename = "ingested")]
    _info: IngestedInfo,
    #[serde(default)]
    recalls: Vec<RecallRow>,
    #[serde(default)]
    complaints: Vec<ComplaintRow>,
    #[serde(default)]
    decodes: Vec<DecodeRow>,
}

/// Make and model as NHTSA matches them: case-insensitive, surrounding space ignored.
pub fn model_key(make: &str, model: &str) -> (String, String) {
    (make.trim().to_uppercase(), model.trim().to_uppercase())
}

/// What a complaint is counted by: its ODI number (one complaint, several component rows), and the VIN
/// prefix it names or else its make, model and model year.
struct ComplaintRef {
    odi_number: String,
    vin_prefix: Option<String>,
    vehicle: Option<(String, String, i32)>,
}

/// The official files the served data comes from (ingested data only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    pub recalls: Option<&'static str>,
    pub complaints: Option<&'static str>,
}

pub struct Index {
    decodes: HashMap<String, DecodeRow>,
    patterns: HashMap<String, Vec<VehiclePattern>>,
    plants: HashMap<(String, String), String>,
    recalls: HashMap<(String, String), Vec<Recall>>,
    complaints_by_vin: HashMap<String, Vec<usize>>,
    complaints_by_vehicle: HashMap<(String, String, i32), Vec<usize>>,
    complaints: Vec<ComplaintRef>,
    thefts: HashSet<String>,
    /// Whether theft reports exist at all (the demo seed has some; no official theft file is ingested).
    pub theft_checked: bool,
    pub sources: Sources,
}

impl Index {
    /// Builds the index from whichever document the host served.
    pub fn load(doc: Value) -> Result<Self, String> {
        if doc.get(INGESTED_KEY).is_some() {
            let doc: IngestedDoc = serde_json::from_value(doc)
                .map_err(|e| format!("the ingested vehicle records are not readable: {e}"))?;
            return Ok(Self::ingested(doc));
        }
        let snapshot: Snapshot =
            serde_json::from_value(doc).map_err(|e| format!("dataset `vin` does not match its schema: {e}"))?;
        Ok(Self::new(snapshot))
    }

    /// The demo seed.
    pub fn new(snapshot: Snapshot) -> Self {
        let mut patterns: HashMap<String, Vec<VehiclePattern>> = HashMap::new();
        for p in snapshot.vehicles {
            patterns.entry(p.wmi.to_uppercase()).or_default().push(p);
        }
        let plants =
            snapshot.plants.into_iter().map(|p| ((p.wmi.to_uppercase(), p.code.to_uppercase()), p.plant)).collect();
        let complaints = snapshot
            .complaints
            .into_iter()
            .map(|c| {
                let (make, model) = model_key(&c.make, &c.model);
                ComplaintRef { odi_number: c.odi_number, vin_prefix: None, vehicle: Some((make, model, c.year)) }
            })
            .collect();
        let thefts: HashSet<String> = snapshot.thefts.into_iter().map(|t| t.vin.trim().to_uppercase()).collect();
        let mut index = Self::empty(complaints, snapshot.recalls);
        index.patterns = patterns;
        index.plants = plants;
        index.thefts = thefts;
        index.theft_checked = true;
        index
    }

    /// Ingested NHTSA records.
    fn ingested(doc: IngestedDoc) -> Self {
        let sources = Sources {
            recalls: (!doc.recalls.is_empty()).then_some(RECALLS_FILE_URL),
            complaints: (!doc.complaints.is_empty()).then_some(COMPLAINTS_FILE_URL),
        };
        let complaints = doc
            .complaints
            .into_iter()
            .map(|c| {
                let vin_prefix = c.vin.filter(|v| v.len() >= MIN_VIN_PREFIX);
                let vehicle = c.year.map(|y| {
                    let (make, model) = model_key(&c.make, &c.model);
                    (make, model, y)
                });
                ComplaintRef { odi_number: c.odi_number, vin_prefix, vehicle }
            })
            .collect();
        let recalls = doc.recalls.into_iter().filter_map(Recall::from_row).collect();
        let mut index = Self::empty(complaints, recalls);
        index.decodes = doc.decodes.into_iter().map(|d| (d.vin.to_uppercase(), d)).collect();
        index.sources = sources;
        index
    }

    fn empty(complaints: Vec<ComplaintRef>, recall_rows: Vec<Recall>) -> Self {
        let mut recalls: HashMap<(String, String), Vec<Recall>> = HashMap::new();
        for r in recall_rows {
            recalls.entry(model_key(&r.make, &r.model)).or_default().push(r);
        }
        let mut complaints_by_vin: HashMap<String, Vec<usize>> = HashMap::new();
        let mut complaints_by_vehicle: HashMap<(String, String, i32), Vec<usize>> = HashMap::new();
        for (i, c) in complaints.iter().enumerate() {
            match (&c.vin_prefix, &c.vehicle) {
                (Some(prefix), _) => complaints_by_vin.entry(prefix.clone()).or_default().push(i),
                (None, Some(vehicle)) => complaints_by_vehicle.entry(vehicle.clone()).or_default().push(i),
                (None, None) => {}
            }
        }
        Self {
            decodes: HashMap::new(),
            patterns: HashMap::new(),
            plants: HashMap::new(),
            recalls,
            complaints_by_vin,
            complaints_by_vehicle,
            complaints,
            thefts: HashSet::new(),
            theft_checked: false,
            sources: Sources::default(),
        }
    }

    /// vPIC's decode of exactly this VIN, when one was ingested.
    pub fn decode(&self, vin: &str) -> Option<&DecodeRow> {
        self.decodes.get(vin)
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

    /// Distinct complaints (ODI numbers) about this vehicle: those whose VIN prefix starts this VIN, plus
    /// those without a usable VIN that name the same make, model and model year (`vehicle`, when known).
    pub fn complaints(&self, vin: &str, vehicle: Option<(&str, &str, i32)>) -> u64 {
        let by_vin = (MIN_VIN_PREFIX..=vin.len()).filter_map(|n| self.complaints_by_vin.get(&vin[..n])).flatten();
        let by_vehicle = vehicle
            .and_then(|(make, model, year)| {
                let (make, model) = model_key(make, model);
                self.complaints_by_vehicle.get(&(make, model, year))
            })
            .into_iter()
            .flatten();
        let odi: HashSet<&str> = by_vin.chain(by_vehicle).map(|&i| self.complaints[i].odi_number.as_str()).collect();
        odi.len() as u64
    }

    pub fn stolen(&self, vin: &str) -> bool {
        self.thefts.contains(vin)
    }
}
