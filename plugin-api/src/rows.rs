//! Rows written as JSON once, when a dataset loads, and served as array slices without writing them again.
//!
//! A dataset whose answers are runs of the same rows (a price series cut to a date range, say) spends most of a
//! request writing those rows: formatting every float and date and escaping every key, for bytes that never
//! change. [`JsonRows`] writes each row with serde_json when the dataset loads and keeps the texts back to back;
//! [`JsonRows::slice`] (a run of rows) and [`JsonRows::pick`] (rows by index) are fields of the answer's body that
//! serialise as the JSON array of those rows by copying their texts, [`JsonRows::get`] one row, and [`JsonValue`]
//! a single value written once (a dataset's `meta`); [`JsonFrame`] a value written once with one or two fields
//! left open (each a [`Slot`]) and filled per answer (a filing whose trades depend on the request, a search hit
//! whose score and snippet do). The answer is still written
//! by serde_json ([`crate::Response::json`]), so the host reads it as JSON it need not check again.
//!
//! The copy goes through serde_json's raw-value path (the `raw_value` feature, on in the workspace): the
//! serializer writes a fragment as it is when it is handed as the one field of a struct named
//! `$serde_json::private::RawValue`, which is how serde_json's own `RawValue` serialises. Only texts serde_json
//! wrote are handed over that way (a filled frame: the two parts of one value serde_json wrote around a mark, and
//! the open value serde_json wrote between them), and the tests compare every slice and frame with the values
//! written whole, so a serde_json that stopped honouring the name would fail them rather than serve a different
//! body.

use std::marker::PhantomData;
use std::ops::Range;

use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::openapi::{schema, ApiSchema};

/// The struct name under which serde_json writes a field's string as raw JSON (`serde_json::value::RawValue`'s).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Rows of type `T`, each written as JSON once. About the size of the rows' JSON plus four bytes a row.
pub struct JsonRows<T> {
    /// The rows' JSON back to back.
    text: String,
    /// Where each row starts in `text`, and `text`'s length after the last: `len() + 1` entries.
    starts: Vec<u32>,
    row: PhantomData<fn() -> T>,
}

impl<T> JsonRows<T> {
    /// Writes every row. `T` is what the rows are documented as ([`ApiSchema`]); the rows written are of that type,
    /// or of one differing only in lifetimes (a view borrowing from the dataset the rows are kept beside, which
    /// cannot be named `'static`). Fails when a row cannot be serialised, or when the rows' JSON passes 4 GiB.
    pub fn new<R: Serialize>(rows: impl IntoIterator<Item = R>) -> Result<Self, serde_json::Error> {
        let mut text = Vec::new();
        let mut starts = vec![0];
        for row in rows {
            serde_json::to_writer(&mut text, &row)?;
            starts.push(u32::try_from(text.len()).map_err(|_| serde_json::Error::custom("rows' JSON over 4 GiB"))?);
        }
        // serde_json writes UTF-8 only.
        let text = String::from_utf8(text).map_err(serde_json::Error::custom)?;
        Ok(JsonRows { text, starts, row: PhantomData })
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows in `range` (cut to the rows there are), as a body field that serialises as their JSON array.
    pub fn slice(&self, range: Range<usize>) -> JsonArray<'_, T> {
        let end = range.end.min(self.len());
        JsonArray { rows: self, which: Which::Run(range.start.min(end)..end) }
    }

    /// The rows at `indices`, in that order, as a body field that serialises as their JSON array; `None` when an
    /// index is past the rows.
    pub fn pick(&self, indices: Vec<usize>) -> Option<JsonArray<'_, T>> {
        indices.iter().all(|&i| i < self.len()).then_some(JsonArray { rows: self, which: Which::Picked(indices) })
    }

    /// Row `i` as a body field that serialises as its JSON; `None` past the rows.
    pub fn get(&self, i: usize) -> Option<JsonRow<'_, T>> {
        (i < self.len()).then(|| JsonRow { json: self.row(i), row: PhantomData })
    }

    /// Row `i`'s JSON.
    fn row(&self, i: usize) -> &str {
        &self.text[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// One value written as JSON once (an answer's part that is the same in every answer of an instance, such as a
/// dataset's `meta`), documented as `T` like a row of [`JsonRows`].
pub struct JsonValue<T> {
    text: String,
    row: PhantomData<fn() -> T>,
}

impl<T> JsonValue<T> {
    /// Writes `value` (of type `T`, or of one differing only in lifetimes).
    pub fn new<R: Serialize>(value: &R) -> Result<Self, serde_json::Error> {
        Ok(JsonValue { text: serde_json::to_string(value)?, row: PhantomData })
    }

    /// The value as a body field that serialises as its JSON.
    pub fn get(&self) -> JsonRow<'_, T> {
        JsonRow { json: &self.text, row: PhantomData }
    }
}

/// A value of type `T` written once with one or two fields' values left open, filled per answer
/// ([`JsonFrame::fill`], [`JsonFrame::fill_two`]): a filing whose header never changes but whose trades depend on
/// the request, a search hit whose score and snippet do. Each open field is a [`Slot`].
pub struct JsonFrame<T> {
    /// The value's JSON without its open fields' values.
    text: String,
    /// Where each open field's value goes in `text`, in order.
    cuts: Vec<usize>,
    row: PhantomData<fn() -> T>,
}

/// The open field of a [`JsonFrame`]'s value (of type `S`, documented as `S`): serialises as a mark that
/// [`JsonFrame::new`] cuts the written text at. serde_json never writes a NUL byte itself (it escapes control
/// characters), so the mark cannot be confused with the value's own text.
pub struct Slot<S>(PhantomData<fn() -> S>);

impl<S> Slot<S> {
    /// The open field.
    pub fn new() -> Self {
        Slot(PhantomData)
    }
}

impl<S> Default for Slot<S> {
    fn default() -> Self {
        Self::new()
    }
}

/// A NUL byte: see [`Slot`].
const SLOT_MARK: &str = "\0";

impl<S> Serialize for Slot<S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        RawJson(SLOT_MARK).serialize(serializer)
    }
}

impl<S: ApiSchema> ApiSchema for Slot<S> {
    fn schema() -> Value {
        S::schema()
    }
    fn components(out: &mut Map<String, Value>) {
        S::components(out)
    }
}

impl<T> JsonFrame<T> {
    /// Writes `value` (of type `T`, or of one differing only in lifetimes), which holds one or two [`Slot`]s (what
    /// [`JsonFrame::fill`] and [`JsonFrame::fill_two`] fill).
    pub fn new<R: Serialize>(value: &R) -> Result<Self, serde_json::Error> {
        let written = serde_json::to_string(value)?;
        let mut text = String::with_capacity(written.len());
        let mut cuts = Vec::new();
        for (i, part) in written.split(SLOT_MARK).enumerate() {
            if i > 0 {
                cuts.push(text.len());
            }
            text.push_str(part);
        }
        if !(1..=2).contains(&cuts.len()) {
            return Err(serde_json::Error::custom(format!(
                "a JsonFrame's value holds one or two Slots, not {}",
                cuts.len()
            )));
        }
        Ok(JsonFrame { text, cuts, row: PhantomData })
    }

    /// How many open fields the value holds.
    pub fn slots(&self) -> usize {
        self.cuts.len()
    }

    /// Bytes the frame holds (for a cache that weighs what it keeps).
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.cuts.capacity() * std::mem::size_of::<usize>()
    }

    /// The value with `open` written in its one slot, as a body field that serialises as that JSON; an error
    /// when the frame holds more slots.
    pub fn fill<V: SlotValue + ?Sized>(&self, open: &V) -> Result<JsonText<T>, serde_json::Error> {
        self.check_slots(1)?;
        // Room for a few rows of the open value: most fills then allocate once.
        let mut text = Vec::with_capacity(self.text.len() + 1024);
        self.write_filled(&mut text, |_, text| open.write_json(text))?;
        Ok(JsonText::written(text))
    }

    /// The value with `first` and `second` written in its two slots, in the order the value writes them, as a
    /// body field that serialises as that JSON; an error when the frame holds another number of slots.
    pub fn fill_two<A: SlotValue + ?Sized, B: SlotValue + ?Sized>(
        &self,
        first: &A,
        second: &B,
    ) -> Result<JsonText<T>, serde_json::Error> {
        self.check_slots(2)?;
        let mut text = Vec::with_capacity(self.text.len() + first.room() + second.room());
        self.write_two(&mut text, first, second)?;
        Ok(JsonText::written(text))
    }

    /// Frames each filled with its one value (as [`JsonFrame::fill`] fills one), as a body field that serialises
    /// as the JSON array of them, documented as an array of `T`: one text for the whole list (a page of filings,
    /// each with its trades) instead of one per value, each copied again into the answer. An error when a frame
    /// holds another number of slots.
    pub fn fill_array<'f, A: SlotValue>(
        filled: impl IntoIterator<Item = (&'f Self, A)>,
    ) -> Result<JsonText<Vec<T>>, serde_json::Error>
    where
        T: 'f,
    {
        Self::array_of(
            filled,
            1,
            |value| value.room(),
            |frame, value, text| frame.write_filled(text, |_, text| value.write_json(text)),
        )
    }

    /// Frames each filled with its two values (as [`JsonFrame::fill_two`] fills one), as a body field that
    /// serialises as the JSON array of them, documented as an array of `T`: one text for the whole list (a page of
    /// search hits, each written once per filing) instead of one per value, each copied again into the answer. An
    /// error when a frame holds another number of slots.
    pub fn fill_two_array<'f, A: SlotValue, B: SlotValue>(
        filled: impl IntoIterator<Item = (&'f Self, A, B)>,
    ) -> Result<JsonText<Vec<T>>, serde_json::Error>
    where
        T: 'f,
    {
        Self::array_of(
            filled.into_iter().map(|(frame, first, second)| (frame, (first, second))),
            2,
            |(first, second)| first.room() + second.room(),
            |frame, (first, second), text| frame.write_two(text, first, second),
        )
    }

    /// The JSON array of frames each filled with its `slots` values (`V`: what fills one frame, `room` about
    /// its bytes, `write` appends the filled frame): one text, with room for as many values as the first takes.
    fn array_of<'f, V>(
        filled: impl IntoIterator<Item = (&'f Self, V)>,
        slots: usize,
        room: impl Fn(&V) -> usize,
        write: impl Fn(&Self, &V, &mut Vec<u8>) -> Result<(), serde_json::Error>,
    ) -> Result<JsonText<Vec<T>>, serde_json::Error>
    where
        T: 'f,
    {
        let mut filled = filled.into_iter().peekable();
        // Room for as many values as the first takes, and some: most lists then allocate once.
        let each = filled.peek().map_or(0, |(frame, values)| frame.text.len() + 1 + room(values));
        let mut text = Vec::with_capacity(2 + filled.size_hint().0 * (each + 64));
        text.push(b'[');
        for (i, (frame, values)) in filled.enumerate() {
            frame.check_slots(slots)?;
            if i > 0 {
                text.push(b',');
            }
            text.reserve(frame.text.len() + 1 + room(&values));
            write(frame, &values, &mut text)?;
        }
        text.push(b']');
        Ok(JsonText::written(text))
    }

    fn check_slots(&self, values: usize) -> Result<(), serde_json::Error> {
        if self.cuts.len() == values {
            return Ok(());
        }
        Err(serde_json::Error::custom(format!("a JsonFrame of {} slots filled with {values} values", self.cuts.len())))
    }

    /// Appends the frame's text to `text` with `first` and `second` in its two slots (checked by the caller).
    fn write_two<A: SlotValue + ?Sized, B: SlotValue + ?Sized>(
        &self,
        text: &mut Vec<u8>,
        first: &A,
        second: &B,
    ) -> Result<(), serde_json::Error> {
        self.write_filled(text, |slot, text| match slot {
            0 => first.write_json(text),
            _ => second.write_json(text),
        })
    }

    /// Appends the frame's text to `text` with slot `i`'s value written by `write(i, ..)` at each cut.
    fn write_filled(
        &self,
        text: &mut Vec<u8>,
        mut write: impl FnMut(usize, &mut Vec<u8>) -> Result<(), serde_json::Error>,
    ) -> Result<(), serde_json::Error> {
        let mut from = 0;
        for (slot, &cut) in self.cuts.iter().enumerate() {
            text.extend_from_slice(&self.text.as_bytes()[from..cut]);
            write(slot, text)?;
            from = cut;
        }
        text.extend_from_slice(&self.text.as_bytes()[from..]);
        Ok(())
    }
}

/// The room a slot value is given when it cannot say ([`SlotValue::room`]).
const DEFAULT_ROOM: usize = 32;

/// What a [`JsonFrame`]'s slot is filled with: any value serde serialises (written by serde_json), or a
/// [`JsonStr`].
pub trait SlotValue {
    /// Appends the value's JSON to `out`.
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error>;

    /// About the bytes [`SlotValue::write_json`] appends, reserved before it writes.
    fn room(&self) -> usize {
        DEFAULT_ROOM
    }
}

impl<V: Serialize + ?Sized> SlotValue for V {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        serde_json::to_writer(out, self)
    }
}

/// A string filling a [`JsonFrame`]'s slot, written as serde_json writes it, with less work for long text: a
/// text holding no byte that JSON escapes (`"`, `\`, a control character) is found to hold none by a scan the
/// compiler vectorises and copied between quotes as it is; any other text is written by serde_json. Why:
/// serde_json looks every byte of a string up in its escape table one at a time, and a search hit's snippet
/// (about 160 characters, 20 or more hits an answer) escaped that way was a fifth of edgar-search's cold answer.
#[derive(Debug, Clone, Copy)]
pub struct JsonStr<'a>(pub &'a str);

impl SlotValue for JsonStr<'_> {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        if holds_escaped_byte(self.0.as_bytes()) {
            return serde_json::to_writer(out, self.0);
        }
        out.reserve(self.0.len() + 2);
        out.push(b'"');
        out.extend_from_slice(self.0.as_bytes());
        out.push(b'"');
        Ok(())
    }

    fn room(&self) -> usize {
        self.0.len() + 2
    }
}

/// Whether `bytes` hold a byte serde_json writes escaped in a string: `"`, `\` or one below 0x20 (it leaves
/// 0x7F and every byte of a non-ASCII character as they are); a text without one is its JSON string between two
/// quotes. In blocks without an early exit inside one, so the compiler compares many bytes at a time.
pub fn holds_escaped_byte(bytes: &[u8]) -> bool {
    bytes.chunks(64).any(|block| block.iter().fold(false, |any, &b| any | (b < 0x20) | (b == b'"') | (b == b'\\')))
}

/// A [`JsonFrame`] filled for one answer: serialises as its JSON, documented as `T`.
pub struct JsonText<T> {
    text: String,
    row: PhantomData<fn() -> T>,
}

impl<T> JsonText<T> {
    /// A filled frame's text (or a list of them).
    fn written(text: Vec<u8>) -> Self {
        // SAFETY: `text` is made of a frame's parts, cut at the places of ASCII bytes (the marks, removed), so
        // each part is UTF-8 on its own, of brackets and commas, and of values serde_json wrote (it writes UTF-8
        // only; its own `to_string` relies on that the same way) or a `JsonStr`'s text, a `str`. Checking it again
        // would read every byte of every filled value once more (a profile showed it at 2% of a cold answer).
        let text = unsafe { String::from_utf8_unchecked(text) };
        JsonText { text, row: PhantomData }
    }
}

impl<T> Serialize for JsonText<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawJson(&self.text).serialize(serializer)
    }
}

impl<T: ApiSchema> ApiSchema for JsonText<T> {
    fn schema() -> Value {
        T::schema()
    }
    fn components(out: &mut Map<String, Value>) {
        T::components(out)
    }
}

/// Rows of a [`JsonRows`]: serialises as the JSON array of those rows, documented as an array of `T`.
pub struct JsonArray<'a, T> {
    rows: &'a JsonRows<T>,
    which: Which,
}

/// Which rows a [`JsonArray`] holds (every index checked against the rows when it was made).
enum Which {
    Run(Range<usize>),
    Picked(Vec<usize>),
}

impl<T> JsonArray<'_, T> {
    /// The number of rows in the array.
    pub fn len(&self) -> usize {
        match &self.which {
            Which::Run(run) => run.len(),
            Which::Picked(indices) => indices.len(),
        }
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Serialize for JsonArray<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Row by row (a copy each), so that a serializer that reads what it is handed (serde_json's into a
        // `Value`) gets one JSON value at a time.
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        match &self.which {
            Which::Run(run) => run.clone().try_for_each(|i| seq.serialize_element(&RawJson(self.rows.row(i))))?,
            Which::Picked(indices) => {
                indices.iter().try_for_each(|&i| seq.serialize_element(&RawJson(self.rows.row(i))))?
            }
        }
        seq.end()
    }
}

/// One row of a [`JsonRows`], or a [`JsonValue`]: serialises as its JSON, documented as `T`.
pub struct JsonRow<'a, T> {
    json: &'a str,
    row: PhantomData<fn() -> T>,
}

impl<T> Serialize for JsonRow<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawJson(self.json).serialize(serializer)
    }
}

impl<T: ApiSchema> ApiSchema for JsonRow<'_, T> {
    fn schema() -> Value {
        T::schema()
    }
    fn components(out: &mut Map<String, Value>) {
        T::components(out)
    }
}

impl<T: ApiSchema> ApiSchema for JsonArray<'_, T> {
    fn schema() -> Value {
        schema::array(T::schema())
    }
    fn components(out: &mut Map<String, Value>) {
        T::components(out)
    }
}

/// JSON text serde_json wrote, handed to a serde_json serializer to be written as it is.
struct RawJson<'a>(&'a str);

impl Serialize for RawJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(RAW_VALUE_TOKEN, self.0)?;
        raw.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Clone)]
    #[serde(rename_all = "camelCase")]
    struct Row {
        date: &'static str,
        close: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        adj_close: Option<f64>,
        note: &'static str,
    }

    fn rows() -> Vec<Row> {
        vec![
            Row { date: "2026-01-02", close: 1.5, adj_close: None, note: "plain" },
            Row { date: "2026-01-05", close: 0.1 + 0.2, adj_close: Some(-3e-9), note: "a \"quoted\", comma" },
            Row { date: "2026-01-06", close: 1e300, adj_close: Some(2.0), note: "\u{e9}\n\\" },
            Row { date: "2026-01-07", close: 42.0, adj_close: None, note: "]}[{" },
        ]
    }

    #[derive(Serialize)]
    struct Body<'a, S> {
        count: usize,
        series: S,
        next: Option<&'a str>,
    }

    #[test]
    fn every_slice_is_written_as_the_rows_one_by_one() {
        let all = rows();
        let kept = JsonRows::<Row>::new(all.clone()).unwrap();
        assert_eq!(kept.len(), 4);
        for start in 0..=5 {
            for end in 0..=5 {
                let expected: Vec<Row> = all.iter().take(end.min(4)).skip(start.min(end.min(4))).cloned().collect();
                let plain = serde_json::to_vec(&Body { count: expected.len(), series: &expected, next: None });
                let sliced =
                    serde_json::to_vec(&Body { count: expected.len(), series: kept.slice(start..end), next: None });
                assert_eq!(
                    String::from_utf8(sliced.unwrap()).unwrap(),
                    String::from_utf8(plain.unwrap()).unwrap(),
                    "{start}..{end}"
                );
                // And through serde_json's value serializer (tests compare answers as values).
                let value = serde_json::to_value(kept.slice(start..end)).unwrap();
                assert_eq!(value, serde_json::to_value(&expected).unwrap(), "{start}..{end}");
            }
        }
    }

    #[test]
    fn picked_rows_and_single_rows_are_written_as_the_rows() {
        let all = rows();
        let kept = JsonRows::<Row>::new(all.clone()).unwrap();
        for picked in [vec![], vec![3], vec![2, 0], vec![1, 1, 3, 0]] {
            let expected: Vec<Row> = picked.iter().map(|&i| all[i].clone()).collect();
            let array = kept.pick(picked.clone()).unwrap();
            assert_eq!(array.len(), picked.len());
            assert_eq!(serde_json::to_string(&array).unwrap(), serde_json::to_string(&expected).unwrap());
            assert_eq!(serde_json::to_value(&array).unwrap(), serde_json::to_value(&expected).unwrap());
        }
        assert!(kept.pick(vec![0, 4]).is_none(), "an index past the rows");
        for (i, row) in all.iter().enumerate() {
            let one = kept.get(i).unwrap();
            assert_eq!(serde_json::to_string(&one).unwrap(), serde_json::to_string(row).unwrap());
            assert_eq!(serde_json::to_value(&one).unwrap(), serde_json::to_value(row).unwrap());
        }
        assert!(kept.get(4).is_none());
    }

    #[test]
    fn a_value_is_written_as_it_is() {
        let row = &rows()[1];
        let value = JsonValue::<Row>::new(row).unwrap();
        assert_eq!(serde_json::to_string(&value.get()).unwrap(), serde_json::to_string(row).unwrap());
    }

    #[test]
    fn no_rows_make_an_empty_array() {
        let kept = JsonRows::<Row>::new(Vec::<Row>::new()).unwrap();
        assert!(kept.is_empty());
        assert_eq!(serde_json::to_string(&kept.slice(0..10)).unwrap(), "[]");
    }

    #[test]
    fn arrays_and_rows_are_documented_as_their_rows() {
        assert_eq!(JsonArray::<'_, String>::schema(), Vec::<String>::schema());
        assert_eq!(JsonRow::<'_, String>::schema(), String::schema());
        assert_eq!(JsonText::<Vec<String>>::schema(), Vec::<String>::schema(), "a list of filled frames");
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Filing<'a, S> {
        member: &'a str,
        trades: S,
        source_url: Option<&'a str>,
    }

    #[test]
    fn a_frame_filled_is_the_value_written_whole() {
        let all = rows();
        let kept = JsonRows::<Row>::new(all.clone()).unwrap();
        // Names holding what a mark could be mistaken for: a NUL character, a backslash and zero, quotes.
        for member in ["Ann Lee", "nul \u{0} here", "back\\0slash", "\"trades\":[]"] {
            for source_url in [None, Some("https://x.invalid/\u{0}")] {
                let frame = JsonFrame::<()>::new(&Filing { member, trades: Slot::<()>::new(), source_url }).unwrap();
                for picked in [vec![], vec![1], vec![3, 0, 2]] {
                    let expected: Vec<Row> = picked.iter().map(|&i| all[i].clone()).collect();
                    let whole = serde_json::to_string(&Filing { member, trades: &expected, source_url }).unwrap();
                    let filled = frame.fill(&kept.pick(picked.clone()).unwrap()).unwrap();
                    assert_eq!(serde_json::to_string(&filled).unwrap(), whole, "{member:?} {picked:?}");
                    assert_eq!(serde_json::to_value(&filled).unwrap(), serde_json::from_str::<Value>(&whole).unwrap());
                    // Filled with values written now, the same text.
                    let now = frame.fill(&expected).unwrap();
                    assert_eq!(serde_json::to_string(&now).unwrap(), whole);
                }
            }
        }
    }

    #[test]
    fn a_frame_is_filled_with_as_many_values_as_it_has_slots() {
        #[derive(Serialize)]
        struct Two<A, B> {
            a: A,
            b: B,
        }
        let two = JsonFrame::<()>::new(&Two { a: Slot::<()>::new(), b: Slot::<()>::new() }).unwrap();
        assert_eq!(two.slots(), 2);
        assert!(two.fill(&1).is_err(), "two slots, one value");
        assert!(JsonFrame::<()>::new(&rows()[0]).is_err(), "no slot");
        let three = Two { a: Slot::<()>::new(), b: Two { a: Slot::<()>::new(), b: Slot::<()>::new() } };
        assert!(JsonFrame::<()>::new(&three).is_err(), "three slots: no fill takes three values");
        let frame = JsonFrame::<()>::new(&Slot::<()>::new()).unwrap();
        assert_eq!(serde_json::to_string(&frame.fill(&[1, 2]).unwrap()).unwrap(), "[1,2]", "the whole value open");
        assert!(frame.fill_two(&1, &2).is_err(), "one slot, two values");
        assert!(JsonFrame::fill_two_array([(&two, 1, 2), (&frame, 1, 2)]).is_err(), "one slot, two values");
        let none = JsonFrame::<()>::fill_two_array(Vec::<(_, i32, i32)>::new()).unwrap();
        assert_eq!(serde_json::to_string(&none).unwrap(), "[]");
    }

    #[test]
    fn a_frame_of_two_slots_filled_is_the_value_written_whole() {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Hit<'a, S, T> {
            form: &'a str,
            entity: &'a str,
            score: S,
            snippet: T,
        }
        // Strings holding what a mark could be mistaken for, escapes and non-ASCII text.
        let texts = ["", "Ann Lee", "nul \u{0} here", "back\\0slash", "\"score\":1", "caf\u{e9} \u{1F600}\n"];
        for form in ["10-K", "\u{0}"] {
            for entity in texts {
                let frame =
                    JsonFrame::<()>::new(&Hit { form, entity, score: Slot::<()>::new(), snippet: Slot::<()>::new() })
                        .unwrap();
                let values = [(0.0, ""), (1.2345, "supply chain"), (-3.5e-7, "\u{0}\\"), (12345.0, entity)];
                for (score, snippet) in values {
                    let whole = serde_json::to_string(&Hit { form, entity, score, snippet }).unwrap();
                    let filled = frame.fill_two(&score, snippet).unwrap();
                    assert_eq!(
                        serde_json::to_string(&filled).unwrap(),
                        whole,
                        "{form:?} {entity:?} {score} {snippet:?}"
                    );
                    let filled = frame.fill_two(&score, &JsonStr(snippet)).unwrap();
                    assert_eq!(serde_json::to_string(&filled).unwrap(), whole, "as a JsonStr: {snippet:?}");
                }
            }
        }
    }

    #[test]
    fn frames_filled_into_an_array_are_the_values_written_whole() {
        #[derive(Serialize)]
        struct Hit<'a, S, T> {
            entity: &'a str,
            score: S,
            snippet: T,
        }
        let entities = ["", "Ann Lee", "nul \u{0} here", "\"score\":1", "caf\u{e9} \u{1F600}\n"];
        let frames: Vec<_> = entities
            .iter()
            .map(|entity| JsonFrame::<()>::new(&Hit { entity, score: Slot::<()>::new(), snippet: Slot::<()>::new() }))
            .collect::<Result<_, _>>()
            .unwrap();
        let values = [(0.0, "a \"quoted\" word"), (1.2345, "supply chain"), (-3.5e-7, "\u{0}\\"), (7.0, "")];
        // Every run of frames in turn, each with the values in rotation, against the hits written whole.
        for n in 0..=frames.len() {
            let hits: Vec<_> =
                (0..n).map(|i| Hit { entity: entities[i], score: values[i % 4].0, snippet: values[i % 4].1 }).collect();
            let array =
                JsonFrame::fill_two_array((0..n).map(|i| (&frames[i], values[i % 4].0, JsonStr(values[i % 4].1))));
            assert_eq!(serde_json::to_string(&array.unwrap()).unwrap(), serde_json::to_string(&hits).unwrap());
        }
    }

    #[test]
    fn frames_of_one_slot_filled_into_an_array_are_the_values_written_whole() {
        #[derive(Serialize)]
        struct Filing<'a, S> {
            doc: &'a str,
            trades: S,
        }
        let docs = ["1", "nul \u{0} here", "\"trades\":[]", "caf\u{e9} \u{1F600}\n"];
        let frames: Vec<_> = docs
            .iter()
            .map(|doc| JsonFrame::<()>::new(&Filing { doc, trades: Slot::<()>::new() }))
            .collect::<Result<_, _>>()
            .unwrap();
        let trades: [&[&str]; 3] = [&[], &["AAPL"], &["MSFT", "a \"quoted\" one"]];
        for n in 0..=frames.len() {
            let filings: Vec<_> = (0..n).map(|i| Filing { doc: docs[i], trades: trades[i % 3] }).collect();
            let array = JsonFrame::fill_array((0..n).map(|i| (&frames[i], trades[i % 3])));
            assert_eq!(serde_json::to_string(&array.unwrap()).unwrap(), serde_json::to_string(&filings).unwrap());
        }
        let two = JsonFrame::<()>::new(&Filing { doc: "x", trades: (Slot::<()>::new(), Slot::<()>::new()) }).unwrap();
        assert!(JsonFrame::fill_array([(&frames[0], 1), (&two, 1)]).is_err(), "two slots, one value");
    }

    #[test]
    fn a_json_str_is_written_as_serde_json_writes_the_string() {
        fn written(text: &str) -> String {
            let mut out = Vec::new();
            JsonStr(text).write_json(&mut out).unwrap();
            String::from_utf8(out).unwrap()
        }
        // Every ASCII character and some that are not, alone and inside plain text.
        let chars = (0u8..=0x7F).map(char::from).chain(['\u{80}', '\u{e9}', '\u{2028}', '\u{FFFD}', '\u{1F600}']);
        for c in chars {
            for text in [c.to_string(), format!("supply {c} chain"), format!("{}{c}", "x".repeat(63))] {
                assert_eq!(written(&text), serde_json::to_string(&text).unwrap(), "{text:?}");
            }
        }
        // One byte to escape at every place of a text longer than a few of the scan's blocks, and none.
        let plain: String = "Revenue rose 5 percent; caf\u{e9} \u{1F600} ~ ".chars().cycle().take(300).collect();
        assert_eq!(written(&plain), format!("\"{plain}\""));
        for at in 0..plain.len() {
            for escaped in ["\"", "\\", "\n", "\u{0}", "\u{1f}"] {
                if plain.is_char_boundary(at) {
                    let text = format!("{}{escaped}{}", &plain[..at], &plain[at..]);
                    assert_eq!(written(&text), serde_json::to_string(&text).unwrap(), "{at} {escaped:?}");
                }
            }
        }
        // In a frame's slot, as `fill_two` takes it.
        let frame = JsonFrame::<()>::new(&(Slot::<()>::new(), Slot::<()>::new())).unwrap();
        for text in ["", "a \"quoted\" word", "plain text"] {
            let filled = frame.fill_two(&1.5, &JsonStr(text)).unwrap();
            assert_eq!(serde_json::to_string(&filled).unwrap(), serde_json::to_string(&(1.5, text)).unwrap());
        }
    }
}
