//! Deterministic synthetic EDGAR filings: the generator behind the shipped demo seed
//! (`seed/edgar-search.json` is `generate(SEED_FILINGS, SEED_RNG, &GenOptions::seed())`) and behind corpora of
//! any size for load tests (`examples/gen_corpus.rs`, `examples/bench.rs`).
//!
//! Every filer is fictional (its name ends in `(demo)`, its CIK lies in [`DEMO_CIKS`], a range the SEC has not
//! assigned), every accession number has the form `DEMO-<yyyy>-<sequence>` (EDGAR's are
//! `<10 digits>-<yy>-<6 digits>`) and every address is under the reserved `https://demo.invalid/`. Texts are
//! invented from templates whose vocabulary (supply chain, cybersecurity incident, goodwill impairment, ...)
//! makes full-text queries meaningful. No person is named anywhere.

use chrono::{Datelike, Duration, NaiveDate};

use crate::data::{Filing, Meta, Snapshot};

/// Size and RNG seed of the shipped demo snapshot.
pub const SEED_FILINGS: usize = 300;
pub const SEED_RNG: u64 = 2026;

/// A small, fast, reproducible PRNG (SplitMix64); the corpus must be identical on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Sector of an issuer: picks the sector-specific sentences of its filings.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sector {
    Tech,
    Energy,
    Health,
    Finance,
    Industrial,
    Consumer,
}

/// Fictional operating companies that file 10-K, 10-Q, 8-K, DEF 14A, 4 and SC 13G. Every demo issuer's name ends
/// in `(demo)` and its CIK lies in [`DEMO_CIKS`], far above any CIK the SEC has assigned, so no invented
/// sentence (a material weakness, an impairment, a cybersecurity incident...) is ever attributed to a real
/// filer.
const COMPANIES: &[(&str, &str, Sector)] = &[
    ("Orchard Computing Inc. (demo)", "0009990001", Sector::Tech),
    ("Bluefin Software Corporation (demo)", "0009990002", Sector::Tech),
    ("Cartwheel Online Retail Inc. (demo)", "0009990003", Sector::Consumer),
    ("Quarry Cloud Systems Inc. (demo)", "0009990004", Sector::Tech),
    ("Parallax Social Networks Inc. (demo)", "0009990005", Sector::Tech),
    ("Lumen Cascade Semiconductor Inc. (demo)", "0009990006", Sector::Tech),
    ("Quillspark Motors Inc. (demo)", "0009990007", Sector::Industrial),
    ("Tessellate Chips Corporation (demo)", "0009990008", Sector::Tech),
    ("Nettlebrook Networks Inc. (demo)", "0009990009", Sector::Tech),
    ("Aldergrove Databases Corporation (demo)", "0009990010", Sector::Tech),
    ("Vantablue Microdevices Inc. (demo)", "0009990011", Sector::Tech),
    ("Reelhouse Streaming Inc. (demo)", "0009990012", Sector::Consumer),
    ("Granite Ledger Bancorp (demo)", "0009990013", Sector::Finance),
    ("Lanternwick Bank Corporation (demo)", "0009990014", Sector::Finance),
    ("Copperwick Investment Group Inc. (demo)", "0009990015", Sector::Finance),
    ("Swiftquill Card Networks Inc. (demo)", "0009990016", Sector::Finance),
    ("Prairiefire Petroleum Corporation (demo)", "0009990017", Sector::Energy),
    ("Saltmarsh Energy Corporation (demo)", "0009990018", Sector::Energy),
    ("Willowherb Health Products Company (demo)", "0009990019", Sector::Health),
    ("Foxglove Pharmaceuticals Inc. (demo)", "0009990020", Sector::Health),
    ("Greengrocer Superstores Inc. (demo)", "0009990021", Sector::Consumer),
    ("Brightsoap Household Products Company (demo)", "0009990022", Sector::Consumer),
    ("Fizzwell Beverage Company (demo)", "0009990023", Sector::Consumer),
    ("Toolshed Home Improvement Inc. (demo)", "0009990024", Sector::Consumer),
    ("Kestrel Wing Aerospace Company (demo)", "0009990025", Sector::Industrial),
    ("Bulwark Ridge Defense Corporation (demo)", "0009990026", Sector::Industrial),
    ("Tumbleweed Heavy Equipment Inc. (demo)", "0009990027", Sector::Industrial),
    ("Cinderwheel Turbine Company (demo)", "0009990028", Sector::Industrial),
    ("Thistledown Motor Company (demo)", "0009990029", Sector::Industrial),
    ("Wagonwright Automotive Company (demo)", "0009990030", Sector::Industrial),
];

/// Fictional institutional investment managers that file 13F-HR.
const INSTITUTIONS: &[(&str, &str)] = &[
    ("Harbor Lantern Capital Management LP (demo)", "0009990101"),
    ("Evenkeel Asset Management Inc. (demo)", "0009990102"),
    ("Longshore Index Funds Inc. (demo)", "0009990103"),
    ("Northgate Custody Corporation (demo)", "0009990104"),
    ("Mistral Macro Partners LP (demo)", "0009990105"),
];

/// Fictional issuers filing S-1 registration statements.
const IPO_ISSUERS: &[(&str, &str)] = &[
    ("Nimbus Robotics Inc. (demo)", "0009990201"),
    ("Verdant Bioscience Corp. (demo)", "0009990202"),
    ("Halcyon Grid Storage Inc. (demo)", "0009990203"),
    ("Quillfeather Payments Inc. (demo)", "0009990204"),
    ("Stratus Orbital Systems Inc. (demo)", "0009990205"),
];

/// The CIKs of every demo filer: above 9,990,000, where the SEC has assigned none (the highest CIK in EDGAR's
/// `company_tickers.json` is near 2,100,000 and CIKs are assigned in sequence).
pub const DEMO_CIKS: std::ops::RangeInclusive<&str> = "0009990001"..="0009990999";

/// Where every demo filing "lives": a reserved `.invalid` host (RFC 2606) that can never resolve, so no demo
/// hit links to, or could be mistaken for, a document on sec.gov.
pub const DEMO_URL_BASE: &str = "https://demo.invalid/edgar-search/";

/// Forms and their relative frequency in the corpus.
const FORMS: &[(&str, u32)] =
    &[("10-K", 10), ("10-Q", 22), ("8-K", 30), ("4", 14), ("S-1", 4), ("DEF 14A", 7), ("13F-HR", 6), ("SC 13G", 7)];

/// Periodic-report sentences shared by 10-K, 10-Q and S-1.
const RISK: &[&str] = &[
    "Disruptions in our global supply chain, including shortages of components and logistics delays, could adversely affect our results of operations.",
    "We experienced a cybersecurity incident in which an unauthorized party accessed certain internal systems; the incident did not have a material impact on operations.",
    "We recorded a goodwill impairment charge of ${amount} million related to our {segment} reporting unit.",
    "Management identified a material weakness in internal control over financial reporting related to revenue recognition.",
    "The board of directors authorized a share repurchase program of up to ${amount} million of common stock.",
    "Rising interest rates increased the cost of borrowing under our revolving credit facility.",
    "Tariffs and trade restrictions on imported materials increased our cost of sales.",
    "We continue to invest in artificial intelligence and data center capacity to support customer demand.",
    "Climate-related regulation and extreme weather events may increase our operating costs.",
    "Foreign currency exchange rate fluctuations reduced reported revenue by {pct} percent.",
    "We are a defendant in a securities class action lawsuit alleging misleading statements; we believe the claims are without merit.",
    "Our restructuring plan includes a reduction in workforce of approximately {pct} percent and the consolidation of facilities.",
    "Chain of custody controls over the supply of raw materials were strengthened after a supplier audit.",
    "Revenue increased {pct} percent compared with the prior year, driven by higher demand in {segment}.",
    "We depend on a limited number of suppliers for semiconductor components.",
];

const GOING_CONCERN: &str =
    "Substantial doubt exists about our ability to continue as a going concern without additional financing.";

const EIGHT_K: &[&str] = &[
    "Item 1.05 Material Cybersecurity Incidents. {company} determined that a cybersecurity incident affected certain information technology systems and activated its incident response plan.",
    "Item 2.02 Results of Operations and Financial Condition. {company} issued a press release announcing results for the quarter, with revenue up {pct} percent.",
    "Item 5.02 Departure of Directors or Certain Officers. The chief financial officer notified the company of the intention to resign, effective at the end of the quarter.",
    "Item 1.01 Entry into a Material Definitive Agreement. {company} entered into a merger agreement to acquire a privately held software company for ${amount} million in cash.",
    "Item 8.01 Other Events. The board of directors declared a quarterly cash dividend payable to shareholders of record.",
    "Item 2.05 Costs Associated with Exit or Disposal Activities. The restructuring is expected to result in pre-tax charges of ${amount} million, mostly severance.",
    "Item 7.01 Regulation FD Disclosure. Management will discuss supply chain conditions and the full-year outlook at an investor conference.",
    "Item 2.06 Material Impairments. The company concluded that a goodwill impairment charge of ${amount} million is required for its {segment} unit.",
];

const FORM_4: &[&str] = &[
    "A director reported the sale of {shares} shares at a weighted average price under a Rule 10b5-1 trading plan.",
    "An officer reported the acquisition of {shares} shares upon the vesting of restricted stock units, with shares withheld to cover tax withholding.",
    "The reporting person exercised stock options for {shares} shares and sold the underlying shares on the open market.",
    "A director reported a gift of {shares} shares to a charitable foundation.",
];

const PROXY: &[&str] = &[
    "Shareholders are asked to approve, on an advisory basis, the compensation of our named executive officers (say-on-pay).",
    "The board recommends a vote for the election of each director nominee.",
    "A shareholder proposal requests a report on climate-related risks and greenhouse gas emissions.",
    "Executive compensation consists of base salary, an annual cash incentive and long-term equity awards.",
    "The audit committee recommends ratification of the appointment of the independent registered public accounting firm.",
    "A shareholder proposal requests an independent board chair.",
];

const THIRTEEN_F: &[&str] = &[
    "The information table lists {positions} positions with an aggregate market value of ${amount} million.",
    "Largest holdings are concentrated in information technology, financials and health care.",
    "Confidential treatment has been requested for certain positions.",
    "Holdings include exchange-traded funds and American depositary receipts.",
];

const THIRTEEN_G: &[&str] = &[
    "The reporting person beneficially owns {shares} shares, representing {pct} percent of the class.",
    "The securities were acquired in the ordinary course of business and not with the purpose of changing control of the issuer.",
    "The reporting person has sole voting power and shared dispositive power over the shares.",
];

fn sector_sentences(sector: Sector) -> &'static [&'static str] {
    match sector {
        Sector::Tech => &[
            "Demand for cloud services and artificial intelligence accelerators remained strong.",
            "Export controls on advanced semiconductor products may limit sales to certain customers.",
            "Our data center segment grew faster than our devices segment.",
        ],
        Sector::Energy => &[
            "Upstream production volumes rose while refining margins declined.",
            "Lower commodity prices reduced the carrying value of certain oil and gas properties.",
            "We expanded investment in carbon capture and low-carbon hydrogen projects.",
        ],
        Sector::Health => &[
            "A phase 3 clinical trial met its primary endpoint and we plan to seek FDA approval.",
            "Drug pricing provisions of the Inflation Reduction Act may reduce future revenue.",
            "Product liability litigation related to a discontinued product remains pending.",
        ],
        Sector::Finance => &[
            "Net interest income increased as deposit costs stabilized.",
            "The allowance for credit losses increased due to commercial real estate exposure.",
            "Regulatory capital ratios remained above well-capitalized thresholds.",
        ],
        Sector::Industrial => &[
            "Backlog reached a record level on strong defense and commercial orders.",
            "Labor disputes and a strike at a major assembly plant reduced deliveries.",
            "Production of electric vehicles increased while battery costs declined.",
        ],
        Sector::Consumer => &[
            "Same-store sales increased and e-commerce penetration continued to grow.",
            "Higher freight and supply chain costs pressured gross margin.",
            "Inventory levels normalized after a period of elevated promotional activity.",
        ],
    }
}

fn segments(sector: Sector) -> &'static [&'static str] {
    match sector {
        Sector::Tech => &["cloud services", "devices", "advertising", "enterprise software"],
        Sector::Energy => &["upstream", "refining", "chemicals"],
        Sector::Health => &["pharmaceutical", "medical devices", "consumer health"],
        Sector::Finance => &["consumer banking", "asset management", "investment banking"],
        Sector::Industrial => &["aerospace", "defense", "automotive"],
        Sector::Consumer => &["retail", "beverages", "streaming"],
    }
}

/// Shape of a generated corpus.
#[derive(Debug, Clone)]
pub struct GenOptions {
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
    /// Body sentences per filing besides the opening line (inclusive range).
    pub min_sentences: usize,
    pub max_sentences: usize,
}

impl GenOptions {
    /// The shipped seed: recent filings with a paragraph of text each.
    pub fn seed() -> Self {
        Self { first_day: day(2021, 1, 4), last_day: day(2026, 10, 30), min_sentences: 3, max_sentences: 6 }
    }
    /// Load-test corpora: filings since 2001 (SPEC: "indexed since 2001") with about 40 words each.
    pub fn large() -> Self {
        Self { first_day: day(2001, 1, 2), last_day: day(2026, 10, 30), min_sentences: 1, max_sentences: 2 }
    }
}

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("valid constant date")
}

/// `n` filings from RNG seed `seed`, in generation order (accessions are unique within a corpus of up to
/// one million filings).
pub fn generate(n: usize, seed: u64, opts: &GenOptions) -> Vec<Filing> {
    let mut rng = Rng::new(seed);
    let span = (opts.last_day - opts.first_day).num_days().max(0) as u64;
    let total_weight: u32 = FORMS.iter().map(|(_, w)| w).sum();
    (0..n)
        .map(|i| {
            let mut roll = rng.below(total_weight as usize) as u32;
            let form = FORMS
                .iter()
                .find(|(_, w)| {
                    let hit = roll < *w;
                    roll = roll.saturating_sub(*w);
                    hit
                })
                .map_or("8-K", |(f, _)| f);
            let filed = weekday(opts.first_day + Duration::days(rng.between(0, span) as i64));
            one_filing(&mut rng, i, form, filed, opts)
        })
        .collect()
}

fn one_filing(rng: &mut Rng, i: usize, form: &str, filed: NaiveDate, opts: &GenOptions) -> Filing {
    let (entity, cik, sector) = match form {
        "13F-HR" => {
            let (n, c) = rng.pick(INSTITUTIONS);
            (*n, *c, Sector::Finance)
        }
        "S-1" => {
            let (n, c) = rng.pick(IPO_ISSUERS);
            (*n, *c, *rng.pick(&[Sector::Tech, Sector::Health, Sector::Energy, Sector::Finance, Sector::Industrial]))
        }
        _ => {
            let (n, c, s) = rng.pick(COMPANIES);
            (*n, *c, *s)
        }
    };
    let sentences = opts.min_sentences + rng.below(opts.max_sentences - opts.min_sentences + 1);
    let mut parts: Vec<String> = vec![opening(form, entity, filed)];
    let pool: Vec<&str> = match form {
        "10-K" | "10-Q" => RISK.iter().chain(sector_sentences(sector)).copied().collect(),
        "S-1" => RISK.iter().chain(sector_sentences(sector)).chain([&GOING_CONCERN]).copied().collect(),
        "8-K" => EIGHT_K.to_vec(),
        "4" => FORM_4.to_vec(),
        "DEF 14A" => PROXY.to_vec(),
        "13F-HR" => THIRTEEN_F.to_vec(),
        _ => THIRTEEN_G.to_vec(),
    };
    let mut used = Vec::with_capacity(sentences);
    for _ in 0..sentences.min(pool.len()) {
        // Distinct sentences per filing: a repeated paragraph would only inflate term frequencies.
        let mut k = rng.below(pool.len());
        while used.contains(&k) {
            k = (k + 1) % pool.len();
        }
        used.push(k);
        parts.push(fill(pool[k], rng, entity, sector));
    }
    let accession = format!("DEMO-{}-{:06}", filed.year(), i % 1_000_000 + 1);
    let url = format!("{DEMO_URL_BASE}{accession}");
    Filing {
        form: form.to_string(),
        entity: entity.to_string(),
        cik: cik.to_string(),
        accession,
        url,
        filed_date: filed.format("%Y-%m-%d").to_string(),
        text: parts.join(" "),
    }
}

/// EDGAR accepts filings on business days: a weekend date moves back to the Friday.
fn weekday(d: NaiveDate) -> NaiveDate {
    match d.weekday() {
        chrono::Weekday::Sat => d - Duration::days(1),
        chrono::Weekday::Sun => d - Duration::days(2),
        _ => d,
    }
}

fn opening(form: &str, entity: &str, filed: NaiveDate) -> String {
    // A name ending in a period (`Example Corp.`) must not end a sentence with two.
    let entity_end = if entity.ends_with('.') { entity.to_string() } else { format!("{entity}.") };
    let quarter_end = {
        let q_month = ((filed.month0() / 3) * 3) as i32; // first month (0-based) of the filing quarter
        let first = day(filed.year(), q_month as u32 + 1, 1);
        first - Duration::days(1)
    };
    match form {
        "10-K" => format!("Annual report of {entity} for the fiscal year ended December 31, {}.", filed.year() - 1),
        "10-Q" => format!("Quarterly report of {entity} for the quarter ended {}.", quarter_end.format("%B %-d, %Y")),
        "8-K" => format!("Current report of {entity_end}"),
        "4" => format!("Statement of changes in beneficial ownership of securities of {entity_end}"),
        "S-1" => format!("Registration statement for the initial public offering of common stock of {entity_end}"),
        "DEF 14A" => format!("Notice of annual meeting of shareholders and definitive proxy statement of {entity_end}"),
        "13F-HR" => format!(
            "Quarterly report of institutional investment manager holdings of {entity} for the period ended {}.",
            quarter_end.format("%B %-d, %Y")
        ),
        _ => format!(
            "Schedule 13G statement of beneficial ownership of the common stock of {entity} filed by a passive institutional investor."
        ),
    }
}

fn fill(template: &str, rng: &mut Rng, entity: &str, sector: Sector) -> String {
    let mut out = template.replace("{company}", entity);
    if out.contains("{amount}") {
        out = out.replace("{amount}", &rng.between(12, 4_800).to_string());
    }
    if out.contains("{pct}") {
        out = out.replace("{pct}", &rng.between(2, 19).to_string());
    }
    if out.contains("{shares}") {
        out = out.replace("{shares}", &(rng.between(1, 400) * 250).to_string());
    }
    if out.contains("{positions}") {
        out = out.replace("{positions}", &rng.between(40, 4_200).to_string());
    }
    if out.contains("{segment}") {
        let segment: &&str = rng.pick(segments(sector));
        out = out.replace("{segment}", segment);
    }
    out
}

/// The demo snapshot document `{meta, filings}` for `filings`.
pub fn snapshot(filings: Vec<Filing>) -> Snapshot {
    Snapshot {
        meta: Meta {
            source: "DEMO seed of datahost: synthetic filings of fictional companies, generated from templates (not \
                     EDGAR filings)"
                .into(),
            source_url: "https://demo.invalid/edgar-search".into(),
            caveat: "DEMO DATA: every filer is fictional (names end in \"(demo)\", CIKs 0009990001-0009990999 are not \
                     assigned by the SEC), every filing, sentence and accession number (DEMO-<yyyy>-<sequence>) is \
                     invented for development and every url is under https://demo.invalid/; do not rely on it. \
                     Production indexes EDGAR full-text filings since 2001."
                .into(),
            generated_at: "2026-11-01T06:00:00Z".into(),
        },
        filings,
    }
}

/// The shipped seed, regenerated (a unit test checks it equals `seed/edgar-search.json`).
pub fn seed_snapshot() -> Snapshot {
    snapshot(generate(SEED_FILINGS, SEED_RNG, &GenOptions::seed()))
}
