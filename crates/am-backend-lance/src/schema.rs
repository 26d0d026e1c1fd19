//! The triple table's explicit Arrow schema, and the conversions between
//! assertions and Arrow record batches.
//!
//! Columns (stores.md "Stored columns (v0)", plus `seq`): `assertion_id`, `seq`
//! (the insertion order: the tie order of every query and the change feed's
//! position), `subject`, `predicate`, `object`, `scope`, `owner_id`,
//! `observed_at`, `valid_from`, `valid_until`, `confidence`, `provenance_json`,
//! `attributes_json`, `text` (the canonical text, kept inspectable) and the
//! vector column (default `vector`, `FixedSizeList<Float32, dim>`, null for rows
//! without a vector) with `vector_norm2` (Float64, the vector's squared L2 norm
//! accumulated in f64; the vector search's exactness guard), both present once the
//! store knows its dimension.

use am_triples::{Error, JsonMap, Result, TripleAssertion};
use arrow_array::builder::{FixedSizeListBuilder, Float32Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type, Int64Type};
use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::Arc;

/// The default triple table name (as AbstractMemory's LanceDB store).
pub const DEFAULT_TABLE: &str = "triple_assertions";
/// The insertion-order column.
pub const SEQ: &str = "seq";
/// The squared-norm column beside the vector column.
pub const NORM2: &str = "vector_norm2";

/// The non-vector columns, in schema order, with their type and nullability.
const COLUMNS: &[(&str, DataType, bool)] = &[
    ("assertion_id", DataType::Utf8, false),
    (SEQ, DataType::Int64, false),
    ("subject", DataType::Utf8, false),
    ("predicate", DataType::Utf8, false),
    ("object", DataType::Utf8, false),
    ("scope", DataType::Utf8, false),
    ("owner_id", DataType::Utf8, true),
    ("observed_at", DataType::Utf8, false),
    ("valid_from", DataType::Utf8, true),
    ("valid_until", DataType::Utf8, true),
    ("confidence", DataType::Float64, true),
    ("provenance_json", DataType::Utf8, false),
    ("attributes_json", DataType::Utf8, false),
    ("text", DataType::Utf8, false),
];

/// The names of the non-vector columns (what a structured read selects).
pub fn row_columns() -> Vec<&'static str> {
    COLUMNS.iter().map(|(n, _, _)| *n).collect()
}

/// The Arrow type of a vector column of `dim` float32 values.
pub fn vector_type(dim: usize) -> Result<DataType> {
    let size = i32::try_from(dim)
        .map_err(|_| Error::invalid(format!("vector dimension {dim} exceeds i32")))?;
    Ok(DataType::FixedSizeList(
        Arc::new(Field::new("item", DataType::Float32, true)),
        size,
    ))
}

/// The vector column and its squared-norm column, both nullable.
///
/// # Errors
/// `InvalidInput` for a dimension beyond `i32`.
pub fn vector_fields(vector_column: &str, dim: usize) -> Result<Vec<Field>> {
    Ok(vec![
        Field::new(vector_column, vector_type(dim)?, true),
        Field::new(NORM2, DataType::Float64, true),
    ])
}

/// The table schema: every row column, and the vector fields when `dim` is known.
///
/// # Errors
/// `InvalidInput` for a dimension beyond `i32`.
pub fn table_schema(vector_column: &str, dim: Option<usize>) -> Result<SchemaRef> {
    let mut fields: Vec<Field> = COLUMNS
        .iter()
        .map(|(n, t, null)| Field::new(*n, t.clone(), *null))
        .collect();
    if let Some(d) = dim {
        fields.extend(vector_fields(vector_column, d)?);
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// A vector's squared L2 norm, accumulated in f64 one element at a time.
pub fn norm2(v: &[f32]) -> f64 {
    v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum()
}

/// The dimension of `vector_column` in `schema`: `Ok(None)` when absent.
///
/// # Errors
/// `Refused` when a row column is missing or mistyped, or the vector column is
/// not a `FixedSizeList<Float32>` (a table this store did not write).
pub fn check_schema(schema: &Schema, table: &str, vector_column: &str) -> Result<Option<usize>> {
    for (name, ty, _) in COLUMNS {
        match schema.field_with_name(name) {
            Ok(f) if f.data_type() == ty => {}
            Ok(f) => {
                return Err(Error::refused(format!(
                    "LanceDB table {table:?}: column {name:?} must be {ty}, got {}",
                    f.data_type()
                )));
            }
            Err(_) => {
                return Err(Error::refused(format!(
                    "LanceDB table {table:?} lacks the column {name:?} this store needs \
                     (tables written by AbstractMemory 0.3.x have no insertion-order column `seq`)"
                )));
            }
        }
    }
    match schema.field_with_name(vector_column) {
        Err(_) => Ok(None),
        Ok(f) => match f.data_type() {
            DataType::FixedSizeList(item, n) if item.data_type() == &DataType::Float32 => {
                match schema.field_with_name(NORM2) {
                    Ok(n2) if n2.data_type() == &DataType::Float64 => {}
                    _ => {
                        return Err(Error::refused(format!(
                            "LanceDB table {table:?} has a vector column but no Float64 column {NORM2:?}"
                        )));
                    }
                }
                Ok(usize::try_from(*n).ok())
            }
            other => Err(Error::refused(format!(
                "LanceDB table {table:?}: vector column {vector_column:?} must be \
                 FixedSizeList<Float32>, got {other}"
            ))),
        },
    }
}

fn json_text(map: &JsonMap) -> String {
    serde_json::to_string(map).unwrap_or_else(|_| "{}".to_owned())
}

/// One row to write: a canonical assertion with its id, its insertion position,
/// its canonical text and its vector.
pub struct NewRow<'a> {
    /// The canonical assertion (id stamped).
    pub assertion: &'a TripleAssertion,
    /// Insertion position.
    pub seq: i64,
    /// `canonical_text(assertion)`.
    pub text: String,
    /// The embedding, when the row has one.
    pub vector: Option<&'a [f32]>,
}

/// Encode rows as one record batch of `schema`.
///
/// # Errors
/// `Storage` when Arrow refuses the arrays (a vector of another dimension than
/// the schema's, which the store refuses before it gets here).
pub fn to_batch(rows: &[NewRow<'_>], schema: &SchemaRef) -> Result<RecordBatch> {
    let s = |f: fn(&TripleAssertion) -> &str| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| f(r.assertion)),
        ))
    };
    let o = |f: fn(&TripleAssertion) -> Option<&str>| -> ArrayRef {
        Arc::new(rows.iter().map(|r| f(r.assertion)).collect::<StringArray>())
    };
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| {
            r.assertion.assertion_id.as_deref().unwrap_or_default()
        }))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.seq))),
        s(|a| &a.subject),
        s(|a| &a.predicate),
        s(|a| &a.object),
        s(|a| &a.scope),
        o(|a| a.owner_id.as_deref()),
        s(|a| &a.observed_at),
        o(|a| a.valid_from.as_deref()),
        o(|a| a.valid_until.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| r.assertion.confidence)
                .collect::<Float64Array>(),
        ),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| json_text(&r.assertion.provenance)),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| json_text(&r.assertion.attributes)),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.text.as_str()),
        )),
    ];
    if let Some(field) = schema.fields().get(COLUMNS.len()) {
        let DataType::FixedSizeList(item, dim) = field.data_type() else {
            return Err(Error::storage(format!(
                "vector column {:?} is not a FixedSizeList",
                field.name()
            )));
        };
        let width = usize::try_from(*dim).unwrap_or(0);
        let mut b = FixedSizeListBuilder::with_capacity(
            Float32Builder::with_capacity(rows.len() * width),
            *dim,
            rows.len(),
        )
        .with_field(item.clone());
        for r in rows {
            match r.vector {
                Some(v) if v.len() == width => {
                    b.values().append_slice(v);
                    b.append(true);
                }
                Some(v) => {
                    return Err(Error::dimension_mismatch(format!(
                        "vector of dimension {} for a column of dimension {width} (zero rows written)",
                        v.len()
                    )));
                }
                None => {
                    b.values().append_nulls(width);
                    b.append(false);
                }
            }
        }
        columns.push(Arc::new(b.finish()));
        columns.push(Arc::new(
            rows.iter()
                .map(|r| r.vector.map(norm2))
                .collect::<Float64Array>(),
        ));
    }
    RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::storage(format!("cannot build the Arrow batch: {e}")).with_source(e))
}

/// One stored row read back: its insertion position, the assertion, and the
/// vector when it was selected and present.
#[derive(Debug, Clone)]
pub struct StoredRow {
    /// Insertion position.
    pub seq: i64,
    /// The assertion, as written.
    pub assertion: TripleAssertion,
    /// The vector (when selected and not null).
    pub vector: Option<Vec<f32>>,
}

/// The text cell `i` of `column`, `None` for null (Utf8 or LargeUtf8).
fn text_at<'a>(batch: &'a RecordBatch, column: &str, i: usize) -> Result<Option<&'a str>> {
    let a = batch
        .column_by_name(column)
        .ok_or_else(|| Error::storage(format!("LanceDB answer lacks the column {column:?}")))?;
    if a.is_null(i) {
        return Ok(None);
    }
    if let Some(s) = a.as_string_opt::<i32>() {
        return Ok(Some(s.value(i)));
    }
    if let Some(s) = a.as_string_opt::<i64>() {
        return Ok(Some(s.value(i)));
    }
    Err(Error::storage(format!(
        "LanceDB column {column:?} is {}, expected text",
        a.data_type()
    )))
}

fn required<'a>(batch: &'a RecordBatch, column: &str, i: usize) -> Result<&'a str> {
    text_at(batch, column, i)?
        .ok_or_else(|| Error::storage(format!("LanceDB column {column:?} holds a null")))
}

fn json_map(raw: &str, column: &str) -> Result<JsonMap> {
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(serde_json::Value::Object(m)) => Ok(m),
        Ok(_) | Err(_) => Err(Error::storage(format!(
            "LanceDB column {column:?} holds {raw:?}, expected a JSON object"
        ))),
    }
}

/// Decode every row of `batch` (the row columns must be present; the vector
/// column is read when present in the batch).
///
/// # Errors
/// `Storage` for a missing column, a null in a required one, or JSON that is
/// not an object.
pub fn from_batch(batch: &RecordBatch, vector_column: &str) -> Result<Vec<StoredRow>> {
    let seq = batch
        .column_by_name(SEQ)
        .and_then(|a| a.as_primitive_opt::<Int64Type>())
        .ok_or_else(|| Error::storage("LanceDB answer lacks the Int64 column seq"))?;
    let confidence = batch
        .column_by_name("confidence")
        .and_then(|a| a.as_primitive_opt::<Float64Type>());
    let vectors = batch
        .column_by_name(vector_column)
        .and_then(|a| a.as_fixed_size_list_opt());
    let mut out = Vec::with_capacity(batch.num_rows());
    for i in 0..batch.num_rows() {
        let assertion = if batch.column_by_name("subject").is_some() {
            TripleAssertion {
                assertion_id: Some(required(batch, "assertion_id", i)?.to_owned()),
                subject: required(batch, "subject", i)?.to_owned(),
                predicate: required(batch, "predicate", i)?.to_owned(),
                object: required(batch, "object", i)?.to_owned(),
                scope: required(batch, "scope", i)?.to_owned(),
                owner_id: text_at(batch, "owner_id", i)?.map(str::to_owned),
                observed_at: required(batch, "observed_at", i)?.to_owned(),
                valid_from: text_at(batch, "valid_from", i)?.map(str::to_owned),
                valid_until: text_at(batch, "valid_until", i)?.map(str::to_owned),
                confidence: confidence.and_then(|c| (!c.is_null(i)).then(|| c.value(i))),
                provenance: json_map(required(batch, "provenance_json", i)?, "provenance_json")?,
                attributes: json_map(required(batch, "attributes_json", i)?, "attributes_json")?,
            }
        } else {
            // A vector-only read (ranking): only the id is decoded.
            let mut a = TripleAssertion::new("", "", "");
            a.assertion_id = text_at(batch, "assertion_id", i)?.map(str::to_owned);
            a
        };
        let vector = match vectors {
            Some(list) if !list.is_null(i) => {
                let values = list.value(i);
                let floats = values
                    .as_primitive_opt::<Float32Type>()
                    .ok_or_else(|| Error::storage("LanceDB vector column is not float32"))?;
                Some(floats.values().to_vec())
            }
            _ => None,
        };
        out.push(StoredRow {
            seq: seq.value(i),
            assertion,
            vector,
        });
    }
    Ok(out)
}
