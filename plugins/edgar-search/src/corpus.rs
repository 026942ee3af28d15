//! Deterministic synthetic EDGAR filings: the generator behind the shipped demo seed
//! (`seed/edgar-search.json` is `generate(SEED_FILINGS, SEED_RNG, &GenOptions::seed())`) and behind corpora of
//! any size for load tests (`examples/gen_corpus.rs`, `examples/bench.rs`).
//!
//! Company names and CIKs are real; every filing and every sentence is invented from templates whose vocabulary
//! (supply chain, cybersecurity incident, goodwill impairment, ...) makes full-text queries meaningful. No
//! person is named anywhere, so no invented fact is attributed to a real person.

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

/// Operating companies (real names and CIKs) that file 10-K, 10-Q, 8-K, DEF 14A, 4 and SC 13G.
const COMPANIES: &[(&str, &str, Sector)] = &[
    ("Apple Inc.", "0000320193", Sector::Tech),
    ("Microsoft Corporation", "0000789019", Sector::Tech),
    ("Amazon.com, Inc.", "0001018724", Sector::Consumer),
    ("Alphabet Inc.", "0001652044", Sector::Tech),
    ("Meta Platforms, Inc.", "0001326801", Sector::Tech),
    ("NVIDIA Corporation", "0001045810", Sector::Tech),
    ("Tesla, Inc.", "0001318605", Sector::Industrial),
    ("Intel Corporation", "0000050863", Sector::Tech),
    ("Cisco Systems, Inc.", "0000858877", Sector::Tech),
    ("Oracle Corporation", "0001341439", Sector::Tech),
    ("Advanced Micro Devices, Inc.", "0000002488", Sector::Tech),
    ("Netflix, Inc.", "0001065280", Sector::Consumer),
    ("JPMorgan Chase & Co.", "0000019617", Sector::Finance),
    ("Bank of America Corporation", "0000070858", Sector::Finance),
    ("The Goldman Sachs Group, Inc.", "0000886982", Sector::Finance),
    ("Visa Inc.", "0001403161", Sector::Finance),
    ("Exxon Mobil Corporation", "0000034088", Sector::Energy),
    ("Chevron Corporation", "0000093410", Sector::Energy),
    ("Johnson & Johnson", "0000200406", Sector::Health),
    ("Pfizer Inc.", "0000078003", Sector::Health),
    ("Walmart Inc.", "0000104169", Sector::Consumer),
    ("The Procter & Gamble Company", "0000080424", Sector::Consumer),
    ("The Coca-Cola Company", "0000021344", Sector::Consumer),
    ("The Home Depot, Inc.", "0000354950", Sector::Consumer),
    ("The Boeing Company", "0000012927", Sector::Industrial),
    ("Lockheed Martin Corporation", "0000936468", Sector::Industrial),
    ("Caterpillar Inc.", "0000018230", Sector::Industrial),
    ("General Electric Company", "0000040545", Sector::Industrial),
    ("Ford Motor Company", "0000037996", Sector::Industrial),
    ("General Motors Company", "0001467858", Sector::Industrial),
];

/// Institutional investment managers (real names and CIKs) that file 13F-HR.
const INSTITUTIONS: &[(&str, &str)] = &[
    ("Berkshire Hathaway Inc.", "0001067983"),
    ("BlackRock, Inc.", "0001364742"),
    ("The Vanguard Group, Inc.", "0000102909"),
    ("State Street Corporation", "0000093751"),
    ("Bridgewater Associates, LP", "0001350694"),
];

/// Fictional issuers filing S-1 registration statements (invented names, CIKs from an unused range).
const IPO_ISSUERS: &[(&str, &str)] = &[
    ("Nimbus Robotics Inc. (demo)", "0009900001"),
    ("Verdant Bioscience Corp. (demo)", "0009900002"),
    ("Halcyon Grid Storage Inc. (demo)", "0009900003"),
    ("Quillfeather Payments Inc. (demo)", "0009900004"),
    ("Stratus Orbital Systems Inc. (demo)", "0009900005"),
];

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
    let year = filed.year();
    let accession = format!("{cik}-{:02}-{:06}", year % 100, i % 1_000_000 + 1);
    let url = format!(
        "https://www.sec.gov/Archives/edgar/data/{}/{}/{}-index.htm",
        cik.trim_start_matches('0'),
        accession.replace('-', ""),
        accession
    );
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
    // `Apple Inc.` must not end a sentence as `Apple Inc..`.
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
            source: "datahost demo seed: synthetic EDGAR filings generated from templates (not real filings)".into(),
            source_url: "https://efts.sec.gov/LATEST/search-index".into(),
            caveat: "DEMO DATA: company names and CIKs are real, but every filing, accession number and sentence is \
                     invented for development; do not rely on it. Production indexes EDGAR full-text filings since \
                     2001."
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
